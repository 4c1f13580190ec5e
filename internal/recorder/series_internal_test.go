package recorder

import (
	"context"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/store"
)

// TestStoredSeriesKeepsEverySecond feeds a recording an hour of
// one-second intervals on a fake clock, as a driver would: each interval to
// AddInterval and to the workload's own series, which coarsens in memory
// past metrics.MaxPoints. Then one last interval goes to the series only, as
// TPC-C's drain of queued Deliveries does. The stored series must hold every
// second at one-second resolution (not the coarsened copy), rows must be in
// the store while the run goes, the recording must never hold more than a
// few seconds of rows, every count and error must be stored exactly once,
// and the drain must be there.
func TestStoredSeriesKeepsEverySecond(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lab := t.TempDir()
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	run := &store.Run{Workload: "fake", Title: "series", StartedAt: start}
	rec, err := Begin(ctx, lab, "", "", run, collect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	kinds := []string{"transaction", "other"}
	mrec := metrics.NewRecorder(kinds, "retries", "failures")
	series := metrics.NewSeries(mrec, start)
	local := mrec.NewLocal()
	const seconds = 2 * metrics.MaxPoints // the workload's series coarsens once
	interval := func(s int) *metrics.Snapshot {
		for range 10 + s%7 {
			local.Record(0, time.Millisecond)
		}
		local.Record(1, 3*time.Millisecond)
		local.Add(0, 1, int64(s%3)) // failures
		local.Add(0, 0, 5)          // retries: not errors
		snap := mrec.Interval()
		snap.Start, snap.End = start.Add(time.Duration(s)*time.Second), start.Add(time.Duration(s+1)*time.Second)
		return snap
	}
	var wantCount, wantErrors int64
	maxPending, storedWhileRunning := 0, 0
	for s := range seconds {
		snap := interval(s)
		wantCount += snap.Count(0)
		wantErrors += snap.Counter(0, 1)
		series.Add(snap, true)
		rec.AddInterval(snap, "failures")
		maxPending = max(maxPending, len(rec.series.pending.rows))
		if s == seconds/2 {
			rec.writes.Wait()
			mid, err := st.Load(ctx, run.ID)
			if err != nil {
				t.Fatal(err)
			}
			storedWhileRunning = len(mid.Series)
		}
	}
	drain := interval(seconds)
	wantCount += drain.Count(0)
	wantErrors += drain.Counter(0, 1)
	series.Add(drain, true)
	if len(series.Points) >= seconds {
		t.Fatalf("the workload's series kept %d points: it should have coarsened past %d", len(series.Points), metrics.MaxPoints)
	}
	run.Series = Intervals(series, start, "failures") // what Fill stores from the result
	if _, err := rec.Finish(ctx, store.Complete); err != nil {
		t.Fatal(err)
	}
	got, err := st.Load(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}

	if storedWhileRunning < 2*(seconds/2-2*flushTicks) {
		t.Errorf("%d rows in the store halfway through the run, want about %d", storedWhileRunning, seconds)
	}
	if maxPending > 2*(flushTicks+1) {
		t.Errorf("the recording held up to %d rows, want at most %d (the seconds not stored yet)", maxPending, 2*(flushTicks+1))
	}
	seen := map[int]bool{}
	var count, errors int64
	for _, iv := range got.Series {
		if iv.Type != "transaction" {
			continue
		}
		if seen[iv.Second] {
			t.Fatalf("second %d stored twice", iv.Second)
		}
		seen[iv.Second] = true
		if iv.Length < 0.999 || iv.Length > 1.001 {
			t.Fatalf("second %d stored with length %.3f s, want 1 s", iv.Second, iv.Length)
		}
		if want := int64(10 + iv.Second%7); iv.Count != want {
			t.Fatalf("second %d: count %d, want %d", iv.Second, iv.Count, want)
		}
		count += iv.Count
		errors += iv.Errors
	}
	if len(seen) != seconds+1 {
		t.Errorf("%d seconds stored, want %d and the drain", len(seen), seconds)
	}
	if !seen[seconds] {
		t.Error("the drain, which only the workload's series had, was not stored")
	}
	if count != wantCount || errors != wantErrors {
		t.Errorf("stored %d transactions and %d errors, the run had %d and %d", count, errors, wantCount, wantErrors)
	}
}
