package recorder_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/ledger"
	"github.com/pgoltp/pgoltp/internal/workload/tpcb"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// shortLedger runs the ledger for a fixed 2 s whatever Run is asked for.
type shortLedger struct{ ledger.Ledger }

func (l shortLedger) Run(ctx context.Context, dsn string, opts workload.RunOptions) (*workload.Result, error) {
	opts.Duration = 2 * time.Second
	return l.Ledger.Run(ctx, dsn, opts)
}

// TestRunRecordsRunAndCheck: recorder.Run stores what the workload measured
// and what its check found, as one complete run; a run that fails is stored
// too, as failed, with why.
func TestRunRecordsRunAndCheck(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	lab := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w := shortLedger{ledger.Ledger{Clients: 2, Accounts: 1000}}
	opts := recorder.Options{Lab: lab, Collect: collect.Options{Interval: 500 * time.Millisecond, NoBloat: true}}

	// The tables are not there yet: the run fails, and is stored as failed.
	out, err := recorder.Run(ctx, dsn, w, opts)
	if err == nil || out == nil || out.RunID == "" {
		t.Fatalf("run on an empty database: %v, %+v; want an error and a stored run", err, out)
	}
	failed := load(t, lab, out.RunID)
	if failed.Status != store.Failed || !hasNote(failed, "run failed") {
		t.Errorf("failed run stored as %s with notes %v", failed.Status, failed.Notes)
	}

	if err := w.Prepare(ctx, dsn, nil); err != nil {
		t.Fatal(err)
	}
	out, err = recorder.Run(ctx, dsn, w, opts)
	if err != nil {
		t.Fatal(err)
	}
	if out.Check == nil || !out.Check.Passed {
		t.Fatalf("check after the run: %+v", out.Check)
	}
	got := load(t, lab, out.RunID)
	if got.Status != store.Complete || got.Workload != "ledger" || got.Title != w.Name() {
		t.Errorf("stored %s %q %q", got.Status, got.Workload, got.Title)
	}
	if got.Param("clients") != "2" || len(got.Headline) == 0 || got.Headline[0].Value <= 0 {
		t.Errorf("params %v, headline %v", got.Params, got.Headline)
	}
	if !hasNote(got, "consistency check: 1 PASS") {
		t.Errorf("check not in the notes: %v", got.Notes)
	}
	if got.Samples == nil || len(got.Samples.Points) == 0 {
		t.Error("no collector samples stored around the run")
	}
	// The ledger hands its intervals over like the others: a series and the
	// hour's histogram are stored.
	if len(got.Series) == 0 || len(got.Hourly) != 1 || got.Hourly[0].Type != "transaction" {
		t.Errorf("stored %d series rows and hourly histograms %+v, want the series and hour 0 of transaction", len(got.Series), got.Hourly)
	}
}

func load(t *testing.T, lab, id string) *store.Run {
	t.Helper()
	s, err := store.Open(context.Background(), lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func hasNote(r *store.Run, prefix string) bool {
	for _, n := range r.Notes {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

// TestRunKeepsHourlyHistograms: recorder.Run hands the workload its
// interval hook (workload.RunOptions.OnInterval), so a real TPC-B run is stored with
// the histogram of its (first, partial) hour, holding exactly the
// transactions of its stored series.
func TestRunKeepsHourlyHistograms(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	lab := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w := tpcb.NewWorkload(1, 2)
	if err := w.Prepare(ctx, dsn, nil); err != nil {
		t.Fatal(err)
	}
	w.Options.Duration = 2 * time.Second
	var log strings.Builder
	out, err := recorder.Run(ctx, dsn, w, recorder.Options{Lab: lab, Log: &log, Collect: collect.Options{Interval: 500 * time.Millisecond, NoBloat: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "checking consistency...") || out.Check == nil {
		t.Errorf("a checked run said %q and checked %+v", log.String(), out.Check)
	}
	got := load(t, lab, out.RunID)
	var inSeries int64
	for _, iv := range got.Series {
		if iv.Type == "transaction" && iv.Second >= 0 && iv.Second < 3600 {
			inSeries += iv.Count
		}
	}
	if len(got.Hourly) != 1 || got.Hourly[0].Hour != 0 || got.Hourly[0].Type != "transaction" {
		t.Fatalf("hourly histograms stored: %+v, want hour 0 of transaction", got.Hourly)
	}
	h, err := got.Hourly[0].Histogram()
	if err != nil {
		t.Fatal(err)
	}
	if inSeries == 0 || h.TotalCount() != inSeries {
		t.Errorf("hour 0 holds %d transactions, the stored series %d", h.TotalCount(), inSeries)
	}
}

// TestRunKeepsHourlyHistogramsOfTPCC: the same through TPC-C's per-second
// hook, for each type the terminals run (the last drain of queued
// Deliveries, after the terminals stopped, is not handed over: Delivery is
// left out of the comparison).
func TestRunKeepsHourlyHistogramsOfTPCC(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	lab := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	w := tpcc.NewWorkload(1, 2)
	w.CheckMode = tpcc.CheckNone
	if err := w.Prepare(ctx, dsn, nil); err != nil {
		t.Fatal(err)
	}
	w.Options.Duration = 3 * time.Second
	var log strings.Builder
	out, err := recorder.Run(ctx, dsn, w, recorder.Options{Lab: lab, Log: &log, Collect: collect.Options{Interval: 500 * time.Millisecond, NoBloat: true}})
	if err != nil {
		t.Fatal(err)
	}
	// CheckMode none: no check runs, and none is announced.
	if strings.Contains(log.String(), "checking consistency") || out.Check != nil {
		t.Errorf("a run with CheckMode none said %q and checked %+v", log.String(), out.Check)
	}
	got := load(t, lab, out.RunID)
	inSeries := map[string]int64{}
	for _, iv := range got.Series {
		if iv.Second >= 0 && iv.Second < 3600 {
			inSeries[iv.Type] += iv.Count
		}
	}
	hourly := map[string]int64{}
	for _, hh := range got.Hourly {
		h, err := hh.Histogram()
		if err != nil {
			t.Fatal(err)
		}
		if hh.Hour != 0 {
			t.Errorf("a run of seconds stored hour %d", hh.Hour)
		}
		hourly[hh.Type] = h.TotalCount()
	}
	if inSeries["new_order"] == 0 {
		t.Fatalf("no New-Order in the series: %v", inSeries)
	}
	for typ, n := range inSeries {
		if typ != "delivery" && hourly[typ] != n {
			t.Errorf("hour 0 holds %d %s, the stored series %d", hourly[typ], typ, n)
		}
	}
}
