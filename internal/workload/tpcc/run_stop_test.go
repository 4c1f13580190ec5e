package tpcc

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/measure"
	"github.com/pgoltp/pgoltp/internal/metrics"
)

// TestRunStopAtTxns: --stop-at-txns N submits exactly N transactions over
// all terminals (the five kinds, Deliveries counted when queued), whether
// terminals share connections or own them, then the database is consistent.
func TestRunStopAtTxns(t *testing.T) {
	t.Parallel()
	dsn := loadForRun(t, 1)
	for _, tc := range []struct {
		name            string
		terminals, conn int
	}{{"shared conns", 10, 3}, {"own conns", 3, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 263 // not a multiple of the terminals: the budget is shared, not split
			res, err := Run(context.Background(), dsn, RunOptions{Terminals: tc.terminals, Conns: tc.conn, StopAtTxns: n, Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			var submitted int64
			for _, tr := range res.Txns[:numDealt] {
				submitted += tr.Count + tr.Errors
			}
			if submitted != n {
				t.Fatalf("%d transactions submitted (%+v), want exactly %d", submitted, res.Txns, n)
			}
			if res.StopReason != "stop-at-txns reached" || res.Interrupted {
				t.Errorf("stop reason %q, interrupted %v", res.StopReason, res.Interrupted)
			}
			if res.Deliveries.Completed != res.Deliveries.Queued {
				t.Errorf("deliveries: %d queued, %d completed", res.Deliveries.Queued, res.Deliveries.Completed)
			}
			mustCheck(t, dsn)
		})
	}
}

func TestRunStopAtTxnsOptions(t *testing.T) {
	bad := RunOptions{StopAtTxns: -5}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "stop-at-txns") {
		t.Fatalf("negative --stop-at-txns: %v", err)
	}
	o := RunOptions{StopAtTxns: 10}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := o.Resolve(1); err != nil || o.Duration != 0 {
		t.Fatalf("Resolve: %v, duration %v: a total must not get the 1m default duration", err, o.Duration)
	}
}

// TestProgressLineEstimatesTimeLeft: a quarter of the budget in 10 s leaves
// about 30 s, shown on the live line.
func TestProgressLineEstimatesTimeLeft(t *testing.T) {
	budget := measure.NewBudget(400)
	for range 100 {
		budget.Take()
	}
	start := time.Now()
	rec := metrics.NewRecorder(kindNames(), counterNames()...)
	var out strings.Builder
	opts := RunOptions{Progress: 10 * time.Second, ProgressOut: &out}
	a := newAggregator(opts, rec, []*measure.Budget{budget}, &RunResult{}, start, start)
	snap := rec.Interval()
	snap.Start, snap.End = start, start.Add(10*time.Second)
	a.interval(snap, false)
	if line := out.String(); !strings.Contains(line, "~30s left (25% of 400 txns)") {
		t.Fatalf("progress line %q lacks the estimate", line)
	}
}
