package tpcb

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
)

// loadedDatabase returns a fresh database loaded at scale 1.
func loadedDatabase(t *testing.T) string {
	t.Helper()
	dsn := pgtestDatabase(t)
	if _, err := Load(context.Background(), dsn, LoadOptions{Scale: 1}); err != nil {
		t.Fatal(err)
	}
	return dsn
}

func TestRunEachScriptAndProtocolPassesCheck(t *testing.T) {
	t.Parallel()
	dsn := loadedDatabase(t)
	for _, script := range Scripts {
		for _, proto := range []Protocol{ProtocolSimple, ProtocolExtended, ProtocolPrepared} {
			t.Run(string(script)+"/"+string(proto), func(t *testing.T) {
				res, err := Run(context.Background(), dsn, RunOptions{Script: script, Protocol: proto, Clients: 3, Transactions: 40})
				if err != nil {
					t.Fatal(err)
				}
				if res.Committed != 120 || res.AbortedClients != 0 {
					t.Fatalf("committed %d, aborted %d (%v), want 120, 0", res.Committed, res.AbortedClients, res.Errors)
				}
				if res.Check == nil || !res.Check.OK {
					t.Fatalf("check failed: %+v", res.Check)
				}
				d := res.Check.Delta
				wantRows := int64(120)
				if script == ScriptSelectOnly {
					wantRows = 0
				}
				if d.HistoryRows != wantRows {
					t.Errorf("%d new history rows, want %d", d.HistoryRows, wantRows)
				}
				if script == ScriptSimpleUpdate && (d.Tellers != 0 || d.Branches != 0) {
					t.Errorf("-N moved tellers/branches: %+v", d)
				}
				def, _ := script.def()
				if len(res.Statements) != len(def.stmts) {
					t.Fatalf("%d statement results, want %d", len(res.Statements), len(def.stmts))
				}
				for _, s := range res.Statements {
					if s.Latency.Count != 120 {
						t.Errorf("%s: %d latencies, want 120", s.Name, s.Latency.Count)
					}
				}
				if res.Latency.Count != 120 || res.Latency.P50 <= 0 || res.Latency.Max < res.Latency.P99 {
					t.Errorf("transaction latency %+v", res.Latency)
				}
				var out bytes.Buffer
				res.WriteSummary(&out)
				for _, want := range []string{"transaction type: " + def.desc, "query mode: " + string(proto),
					"number of transactions actually processed: 120/120", "tps = ", "check: ok"} {
					if !strings.Contains(out.String(), want) {
						t.Errorf("summary lacks %q:\n%s", want, out.String())
					}
				}
			})
		}
	}
	// The whole database still satisfies the global invariants (-N ran, so
	// tellers are not compared with history).
	c, err := Check(context.Background(), dsn, CheckOptions{SkipSomeUpdates: true, ExpectHistory: 3 * 240})
	if err != nil {
		t.Fatal(err)
	}
	if !c.OK {
		t.Fatalf("global check failed: %+v", c.Failures())
	}
}

func TestRunDurationSeriesAndProgress(t *testing.T) {
	dsn := loadedDatabase(t)
	var out bytes.Buffer
	res, err := Run(context.Background(), dsn, RunOptions{Clients: 2, Protocol: ProtocolPrepared, Duration: 2500 * time.Millisecond,
		Progress: time.Second, Out: &out, SnapshotEach: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// The upper bounds leave a busy 2-core machine room to stop late.
	if res.Elapsed < 2500*time.Millisecond || res.Elapsed > 6*time.Second {
		t.Errorf("elapsed %s for a 2.5 s run", res.Elapsed)
	}
	if n := len(res.Series.Points); n < 2 || n > 6 {
		t.Errorf("%d series points, want about 3", n)
	}
	var sum int64
	for _, p := range res.Series.Points {
		sum += p.Counts[kindTxn]
	}
	if sum != res.Committed || res.Committed == 0 {
		t.Errorf("series sums to %d, committed %d", sum, res.Committed)
	}
	if len(res.Snapshots) < 2 || len(res.Histograms) == 0 {
		t.Errorf("%d histogram snapshots, %d run histograms", len(res.Snapshots), len(res.Histograms))
	}
	if lines := strings.Count(out.String(), "progress: "); lines < 2 {
		t.Errorf("%d progress lines:\n%s", lines, out.String())
	}
	if !res.Check.OK {
		t.Errorf("check: %+v", res.Check.Failures())
	}
}

// With fewer Ps than jobs (a library caller's GOMAXPROCS), the loops use the
// scheduler-aware ppoll and still share the CPU fairly.
func TestRunMoreJobsThanProcs(t *testing.T) {
	dsn := loadedDatabase(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	res, err := Run(context.Background(), dsn, RunOptions{Clients: 4, Jobs: 4, Transactions: 30, Protocol: ProtocolExtended})
	if err != nil {
		t.Fatal(err)
	}
	if res.Committed != 120 || !res.EventLoop || !res.Check.OK {
		t.Errorf("committed %d, event loop %v, check %+v", res.Committed, res.EventLoop, res.Check)
	}
}

// --truncate-history empties the history first, as pgbench does; the run's
// own check still holds, the whole-database one no longer does.
func TestRunTruncateHistoryLikePgbench(t *testing.T) {
	t.Parallel()
	dsn := loadedDatabase(t)
	ctx := context.Background()
	if _, err := Run(ctx, dsn, RunOptions{Clients: 2, Transactions: 20}); err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, dsn, RunOptions{Clients: 2, Transactions: 15, TruncateHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Check.OK || res.Check.Sums.HistoryRows != 30 {
		t.Errorf("after truncation: %d history rows, check %+v", res.Check.Sums.HistoryRows, res.Check.Failures())
	}
	c, err := Check(ctx, dsn, CheckOptions{ExpectHistory: -1})
	if err != nil {
		t.Fatal(err)
	}
	if c.OK {
		t.Errorf("whole-database check passed although history was truncated: %+v", c.Conditions)
	}
}

// TestStopAtTxnsRunsExactlyN: --stop-at-txns N over several clients starts
// exactly N transactions in total and lets each finish, so without
// serialization failures (read committed) exactly N commit; the live line
// estimates the time left.
func TestStopAtTxnsRunsExactlyN(t *testing.T) {
	t.Parallel()
	dsn := loadedDatabase(t)
	const n = 317 // not a multiple of the clients: the budget is shared, not split
	var progress bytes.Buffer
	res, err := Run(context.Background(), dsn, RunOptions{Clients: 4, Jobs: 2, StopAtTxns: n,
		Progress: time.Millisecond, SeriesEach: 10 * time.Millisecond, Out: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if res.Committed+res.Failed != n || res.Failed != 0 || res.AbortedClients != 0 {
		t.Fatalf("committed %d, failed %d, aborted %d (%v); want exactly %d committed", res.Committed, res.Failed, res.AbortedClients, res.Errors, n)
	}
	if res.Check == nil || !res.Check.OK || res.Check.Delta.HistoryRows != n {
		t.Fatalf("check %+v, want ok with %d history rows", res.Check, n)
	}
	var out bytes.Buffer
	res.WriteSummary(&out)
	if !strings.Contains(out.String(), "number of transactions actually processed: 317/317") {
		t.Errorf("summary:\n%s", out.String())
	}
	if !strings.Contains(progress.String(), "left (") {
		t.Errorf("progress lines lack the time-left estimate:\n%s", progress.String())
	}
}

func TestStopAtTxnsOptions(t *testing.T) {
	for _, o := range []RunOptions{{StopAtTxns: -1}, {StopAtTxns: 10, Transactions: 5}} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	o := RunOptions{StopAtTxns: 10}
	if err := o.Validate(); err != nil || o.Transactions != 0 {
		t.Fatalf("Validate: %v, transactions %d: the total must not get the -t default", err, o.Transactions)
	}
}
