package ledger

import (
	"context"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// TestRunReturnsSeriesHistogramsAndRate: a ledger run measures like the
// other workloads (it used to return only counts and a per-second list): a
// per-second series, a latency histogram per transaction type that counts
// every committed transaction, a rate a group can sum, and every interval
// handed to the interval callback, adding up to the run.
func TestRunReturnsSeriesHistogramsAndRate(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	l := Ledger{Clients: 2, Accounts: 100}
	if err := l.Prepare(ctx, dsn, nil); err != nil {
		t.Fatal(err)
	}
	var handed int64
	intervals := 0
	onInterval := func(s *metrics.Snapshot, errorCounter string) {
		intervals++
		handed += s.TotalCount()
		if errorCounter != "errors" {
			t.Errorf("interval's error counter %q", errorCounter)
		}
	}
	res, err := l.Run(ctx, dsn, workload.RunOptions{Duration: 3 * time.Second, OnInterval: onInterval})
	if err != nil {
		t.Fatal(err)
	}
	if res.Transactions == 0 || res.Elapsed < 3*time.Second || res.Interrupted {
		t.Fatalf("%d transactions in %v (interrupted %v)", res.Transactions, res.Elapsed, res.Interrupted)
	}
	if res.Series == nil || len(res.Series.Points) < 3 || len(res.PerSecond) < 2 {
		t.Fatalf("series %+v, per second %v: want a point per second", res.Series, res.PerSecond)
	}
	h, ok := res.Latency["transaction"]
	if !ok || h.Counts == nil {
		t.Fatalf("no transaction histogram: %v", res.Latency)
	}
	var inHist int64
	for _, c := range h.Counts {
		inHist += c
	}
	if inHist != res.Transactions || handed != res.Transactions || intervals != len(res.Series.Points) {
		t.Errorf("histogram %d, intervals %d (%d of them, %d points), want each to count the %d committed",
			inHist, handed, intervals, len(res.Series.Points), res.Transactions)
	}
	if res.Rate.Type != "transaction" || res.Rate.Per != time.Second || res.ErrorCounter != "errors" {
		t.Errorf("rate %+v, error counter %q", res.Rate, res.ErrorCounter)
	}
	if res.P99 <= 0 || res.P50 > res.P99 {
		t.Errorf("p50 %v, p99 %v", res.P50, res.P99)
	}
	chk, err := l.Check(ctx, dsn)
	if err != nil || !chk.Passed {
		t.Errorf("check after the run: %+v, %v", chk, err)
	}
}

// TestOverlappingRunsDrawDistinctIDs: two runs on the same tables at once
// (as a commit of one run still in flight when the next begins) never draw
// the same entry id; ids drawn from max(id) at the start of each run
// collided at once ("duplicate key ... ledger_entry_pkey").
func TestOverlappingRunsDrawDistinctIDs(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	l := Ledger{Clients: 2, Accounts: 100}
	if err := l.Prepare(ctx, dsn, nil); err != nil {
		t.Fatal(err)
	}
	var acked [2]Acked
	var errs [2]error
	done := make(chan int)
	for i := range 2 {
		go func() {
			_, acked[i], errs[i] = l.RunLogged(ctx, dsn, 2*time.Second)
			done <- i
		}()
	}
	<-done
	<-done
	seen := map[int64]bool{}
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("run %d: %v", i, errs[i])
		}
		for _, id := range acked[i] {
			if seen[id] {
				t.Fatalf("id %d acknowledged twice", id)
			}
			seen[id] = true
		}
	}
	if len(seen) == 0 {
		t.Fatal("nothing acknowledged")
	}
}
