package recorder

import (
	"context"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/store"
)

// slowHourRun feeds a recording `hours` hours and 10 minutes of one-minute
// intervals on a fake clock, as a workload's driver would (AddInterval, and
// the same snapshots into its series). Each interval holds 1000
// "transaction" latencies of 1 ms and 100 "other" ones of 3 ms, except two
// intervals an hour whose 1000 transactions all take 50+10h ms: their
// intervals' p99 is that, every other interval's is 1 ms, so the
// count-weighted mean of the interval p99s is about 2.6 ms while the hour's
// true p99 (3.3% of its transactions are slow) is the slow value. truth holds
// per hour and type a histogram of the same raw values, recorded directly.
type fedRun struct {
	run        *store.Run
	truth      map[int]map[string]*hdrhistogram.Histogram
	maxInMem   int
	storedLive map[int]int // histograms in the store per hour, read right after the hour closed
	before     int         // histograms in the store just before Finish
}

func feedHours(t *testing.T, lab string, hours int) *fedRun {
	t.Helper()
	ctx := context.Background()
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	f := &fedRun{run: &store.Run{Workload: "fake", Title: "hours", StartedAt: start},
		truth: map[int]map[string]*hdrhistogram.Histogram{}, storedLive: map[int]int{}}
	rec, err := Begin(ctx, lab, "", "", f.run, collect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	kinds := []string{"transaction", "other"}
	mrec := metrics.NewRecorder(kinds, "errors")
	series := metrics.NewSeries(mrec, start)
	local := mrec.NewLocal()
	record := func(hour, kind int, d time.Duration, n int) {
		for range n {
			local.Record(kind, d)
		}
		if f.truth[hour] == nil {
			f.truth[hour] = map[string]*hdrhistogram.Histogram{}
		}
		h := f.truth[hour][kinds[kind]]
		if h == nil {
			h = metrics.NewHistogram()
			f.truth[hour][kinds[kind]] = h
		}
		_ = h.RecordValues(d.Microseconds(), int64(n))
	}
	minutes := hours*60 + 10
	for m := range minutes {
		hour := m / 60
		if m%60 == 7 || m%60 == 8 {
			record(hour, 0, time.Duration(50+10*hour)*time.Millisecond, 1000)
		} else {
			record(hour, 0, time.Millisecond, 1000)
		}
		record(hour, 1, 3*time.Millisecond, 100)
		snap := mrec.Interval()
		snap.Start, snap.End = start.Add(time.Duration(m)*time.Minute), start.Add(time.Duration(m+1)*time.Minute)
		series.Add(snap, true)
		rec.AddInterval(snap, "errors")
		f.maxInMem = max(f.maxInMem, rec.hours.inMemory())
		if m%60 == 0 && hour > 0 {
			// The hour just closed is in the store while the run goes.
			rec.writes.Wait()
			mid, err := st.Load(ctx, f.run.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, hh := range mid.Hourly {
				if hh.Hour == hour-1 {
					f.storedLive[hour-1]++
				}
			}
		}
	}
	rec.writes.Wait()
	mid, err := st.Load(ctx, f.run.ID)
	if err != nil {
		t.Fatal(err)
	}
	f.before = len(mid.Hourly)
	f.run.Series = Intervals(series, start, "errors")
	f.run.EndedAt = start.Add(time.Duration(minutes) * time.Minute)
	if _, err := rec.Finish(ctx, store.Complete); err != nil {
		t.Fatal(err)
	}
	if f.run, err = st.Load(ctx, f.run.ID); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestHourlyHistogramsAreTheHoursOwn: each stored hour's histogram holds
// exactly that hour's intervals (its count is the sum of their counts in the
// stored series) and its p99 is the p99 of all the hour's raw latencies, not
// the mean of the interval p99s; each hour is stored when it closes, and the
// recording never holds more than the current hour's histograms, one per
// type, whether the run lasts one hour or five: the final write adds only
// the last, partial hour.
func TestHourlyHistogramsAreTheHoursOwn(t *testing.T) {
	t.Parallel()
	for _, hours := range []int{1, 5} {
		f := feedHours(t, t.TempDir(), hours)
		counts := map[[2]any]int64{} // (hour, type) → sum of the series' interval counts
		p99Sum, p99Weight := map[int]float64{}, map[int]float64{}
		for _, iv := range f.run.Series {
			counts[[2]any{iv.Second / 3600, iv.Type}] += iv.Count
			if iv.Type == "transaction" {
				p99Sum[iv.Second/3600] += iv.P99 * float64(iv.Count)
				p99Weight[iv.Second/3600] += float64(iv.Count)
			}
		}
		if want := 2 * (hours + 1); len(f.run.Hourly) != want {
			t.Fatalf("%d h: %d hourly histograms stored, want %d (2 types × %d hours, the last partial)", hours, len(f.run.Hourly), want, hours+1)
		}
		for _, hh := range f.run.Hourly {
			h, err := hh.Histogram()
			if err != nil {
				t.Fatal(err)
			}
			if want := counts[[2]any{hh.Hour, hh.Type}]; h.TotalCount() != want {
				t.Errorf("%d h: hour %d %s holds %d latencies, its intervals %d", hours, hh.Hour, hh.Type, h.TotalCount(), want)
			}
			truth := f.truth[hh.Hour][hh.Type]
			if got, want := h.ValueAtPercentile(99), truth.ValueAtPercentile(99); got != want {
				t.Errorf("%d h: hour %d %s p99 %d µs, the hour's raw latencies give %d µs", hours, hh.Hour, hh.Type, got, want)
			}
			if hh.Type == "transaction" {
				slow := int64(50+10*hh.Hour) * 1000
				mean := p99Sum[hh.Hour] / p99Weight[hh.Hour]
				p99 := h.ValueAtPercentile(99)
				if p99 < slow-slow/500 || p99 > slow+slow/500 || (hh.Hour < hours && mean > float64(slow)/5) { // HDR keeps 3 significant digits
					t.Errorf("%d h: hour %d p99 %d µs, want the slow %d µs (the interval-p99 mean, %.0f µs, is far below)", hours, hh.Hour, p99, slow, mean)
				}
			}
		}
		for h := range hours {
			if f.storedLive[h] != 2 {
				t.Errorf("%d h: hour %d had %d histograms in the store right after it closed, want 2", hours, h, f.storedLive[h])
			}
		}
		if f.before != 2*hours || len(f.run.Hourly)-f.before != 2 {
			t.Errorf("%d h: %d histograms stored before Finish, %d by it; want %d and only the partial hour's 2", hours, f.before, len(f.run.Hourly)-f.before, 2*hours)
		}
		if f.maxInMem != 2 {
			t.Errorf("%d h: up to %d histograms in memory, want at most the current hour's 2", hours, f.maxInMem)
		}
	}
}
