package tpcb

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/pgbench"
)

// execSQL runs statements on dsn.
func execSQL(t *testing.T, dsn string, sql ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range sql {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// The protocols must count alike. A trigger on pgbench_history forces,
// from the drawn account alone, serialization failures that never go away
// (aid divisible by 4: failed after --max-tries) and deadlocks that go away
// on the next try (aid ≡ 1 mod 4, every other call of a sequence). With one
// client and the same seed every protocol draws the same accounts in the
// same order (pgbench's PRNG, the same values again on a retry), so every
// counter must come out equal, and the statements' counters must add up to
// the transactions'.
func TestProtocolsCountRetriesAndFailuresAlike(t *testing.T) {
	t.Parallel()
	dsn := loadedDatabase(t)
	execSQL(t, dsn, `create sequence flaky`,
		`create function flaky() returns trigger language plpgsql as $$
		begin
			if new.aid % 4 = 0 then
				raise exception 'forced serialization failure' using errcode = '40001';
			end if;
			if new.aid % 4 = 1 and nextval('flaky') % 2 = 1 then
				raise exception 'forced deadlock' using errcode = '40P01';
			end if;
			return new;
		end $$`,
		`create trigger flaky before insert on pgbench_history for each row execute function flaky()`)
	type counts struct{ Committed, Failed, Retried, Retries, Skipped, Late, StmtFailures, StmtRetries, InsertOK int64 }
	var first counts
	for i, proto := range []Protocol{ProtocolSimple, ProtocolExtended, ProtocolPrepared} {
		execSQL(t, dsn, `alter sequence flaky restart`)
		res, err := Run(context.Background(), dsn, RunOptions{Clients: 1, Transactions: 60, Protocol: proto, MaxTries: 3,
			Seed: 42, NoVacuum: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.AbortedClients != 0 || !res.Check.OK {
			t.Fatalf("%s: aborted %v, check %+v", proto, res.Errors, res.Check.Failures())
		}
		c := counts{Committed: res.Committed, Failed: res.Failed, Retried: res.Retried, Retries: res.Retries, Skipped: res.Skipped, Late: res.Late}
		for _, s := range res.Statements {
			c.StmtFailures += s.Failures
			c.StmtRetries += s.Retries
			if s.Name == "insert_history" {
				c.InsertOK = s.Latency.Count
			}
		}
		if c.Failed == 0 || c.Retried <= c.Failed || c.Committed+c.Failed != 60 || c.StmtFailures != c.Failed ||
			c.StmtRetries != c.Retries || c.InsertOK != c.Committed {
			t.Errorf("%s: scenario did not force both outcomes, or the statements do not add up: %+v", proto, c)
		}
		if i == 0 {
			first = c
		} else if c != first {
			t.Errorf("%s counts %+v, simple %+v", proto, c, first)
		}
	}
}

// A transaction's end counts as tpcb always counted it: retries at their
// statement, failures at the last one tried, retried once per transaction,
// late above the latency limit, lag only when paced, skipped apart.
func TestTallyCounts(t *testing.T) {
	def, _ := ScriptTPCB.def()
	rec := metrics.NewRecorder(kindNames(&def), counterNames...)
	ta := newTally(rec.NewLocal(), &def, RunOptions{LatencyLimit: time.Second})
	ta.Retry(2)
	ta.Retry(2)
	ta.Transaction(pgbench.Tx{Tries: 3, Failed: true, At: 2, Latency: time.Millisecond})
	ta.Transaction(pgbench.Tx{Tries: 1, Failed: true, At: 3})
	ta.Retry(4)
	ta.Transaction(pgbench.Tx{Tries: 2, Latency: 2 * time.Second, Lag: time.Millisecond, Paced: true})
	ta.Transaction(pgbench.Tx{Skipped: true, Paced: true})
	s := rec.Interval()
	txn := s.Counters[kindTxn]
	if txn[cntRetries] != 3 || txn[cntFailures] != 2 || txn[cntRetried] != 2 || txn[cntLate] != 1 || txn[cntSkipped] != 1 {
		t.Errorf("counters %v (failures, retries, retried, skipped, late = 2, 3, 2, 1, 1)", txn)
	}
	if s.Counters[kindStmt(2)][cntFailures] != 1 || s.Counters[kindStmt(3)][cntFailures] != 1 || s.Counters[kindStmt(4)][cntRetries] != 1 {
		t.Errorf("per-statement counters: %v", s.Counters)
	}
	if s.Count(kindTxn) != 1 || s.Count(kindLag(&def)) != 1 || ta.commits != 1 {
		t.Errorf("committed %d, lags %d, commits %d: want 1, 1, 1", s.Count(kindTxn), s.Count(kindLag(&def)), ta.commits)
	}
}

// Cancelling the run's context cancels the statements in flight on the
// server (as pgbench does on Ctrl-C) instead of leaving them running on a
// closed connection; the run ends promptly and says Interrupted.
func TestRunCancelsInFlightStatements(t *testing.T) {
	t.Parallel()
	dsn := loadedDatabase(t)
	execSQL(t, dsn, `create function slow() returns trigger language plpgsql as $$
		begin perform pg_sleep(60); return new; end $$`,
		`create trigger slow before insert on pgbench_history for each row execute function slow()`)
	ctx, cancel := context.WithCancel(context.Background())
	// One client sleeps in the trigger, the other waits for its
	// branch row lock: both have a statement in flight.
	go func() {
		waitForSleepers(t, dsn, 1)
		cancel()
	}()
	t0 := time.Now()
	res, err := Run(ctx, dsn, RunOptions{Clients: 2, Transactions: 1, Protocol: ProtocolPrepared, NoVacuum: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.AbortedClients != 0 || time.Since(t0) > 30*time.Second {
		t.Errorf("interrupted %v, aborted %v, after %s", res.Interrupted, res.Errors, time.Since(t0))
	}
	// The server cancels the sleeps: none is left after a few seconds
	// (generous for a busy machine, far below the 60 s sleep).
	deadline := time.Now().Add(15 * time.Second)
	for n := sleepers(t, dsn); n > 0; n = sleepers(t, dsn) {
		if time.Now().After(deadline) {
			t.Fatalf("%d statements still running on the server after the run was cancelled", n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// sleepers counts the run's backends inside the slow trigger.
func sleepers(t *testing.T, dsn string) int {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `select count(*) from pg_stat_activity
		where application_name = 'pgoltp tpcb' and state = 'active' and wait_event = 'PgSleep'
		and datname = current_database()`).Scan(&n); err != nil {
		t.Error(err)
	}
	return n
}

func waitForSleepers(t *testing.T, dsn string, n int) {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if sleepers(t, dsn) >= n {
			return
		}
	}
	t.Error("the clients never reached the slow trigger")
}

// When the server ends a connection with a FATAL error (here an
// administrator's pg_terminate_backend), the client reconnects and goes on
// (reconnect.go), and the outage it records says that message, not just a
// lost connection. The transaction it was in is in doubt and counts towards -t.
func TestRunReportsFatalErrorOnClose(t *testing.T) {
	t.Parallel()
	dsn := loadedDatabase(t)
	execSQL(t, dsn, `create function slow() returns trigger language plpgsql as $$
		begin perform pg_sleep(60); return new; end $$`,
		`create trigger slow before insert on pgbench_history for each row execute function slow()`)
	go func() {
		waitForSleepers(t, dsn, 1)
		execSQL(t, dsn, `select pg_terminate_backend(pid) from pg_stat_activity
			where application_name = 'pgoltp tpcb' and wait_event = 'PgSleep'
			and datname = current_database()`)
	}()
	res, err := Run(context.Background(), dsn, RunOptions{Clients: 1, Transactions: 1, Protocol: ProtocolPrepared,
		NoVacuum: true, NoCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.AbortedClients != 0 || len(res.Outages) != 1 || !strings.Contains(res.Outages[0].Error, "terminating connection due to administrator command") {
		t.Fatalf("aborted %d (%v), outages %+v", res.AbortedClients, res.Errors, res.Outages)
	}
	if res.InDoubt != 1 || res.Committed != 0 || res.Outages[0].Restored.IsZero() {
		t.Errorf("in doubt %d, committed %d, outage %+v: want the one transaction in doubt and the connection back", res.InDoubt, res.Committed, res.Outages[0])
	}
}
