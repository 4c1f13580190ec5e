package tpcb

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/measure"
	"github.com/pgoltp/pgoltp/internal/metrics"
)

// engines are the two ways clients can run: pgbench-style event loops and
// one goroutine per client through pgconn.
var engines = []struct {
	name       string
	goroutines bool
}{{"event loop", false}, {"goroutine per client", true}}

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

// Both engines must count alike. A trigger on pgbench_history forces, from
// the drawn account alone, serialization failures that never go away (aid
// divisible by 4: failed after --max-tries) and deadlocks that go away on
// the next try (aid ≡ 1 mod 4, every other call of a sequence). With one
// client and the same seed both engines draw the same accounts in the same
// order, so every counter must come out equal.
func TestEnginesCountRetriesAndFailuresAlike(t *testing.T) {
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
	for _, proto := range []Protocol{ProtocolSimple, ProtocolExtended, ProtocolPrepared} {
		t.Run(string(proto), func(t *testing.T) {
			var results [2]*RunResult
			for i, e := range engines {
				execSQL(t, dsn, `alter sequence flaky restart`)
				res, err := Run(context.Background(), dsn, RunOptions{Clients: 1, Transactions: 60, Protocol: proto, MaxTries: 3,
					Seed: 42, NoVacuum: true, GoroutinePerClient: e.goroutines})
				if err != nil {
					t.Fatal(err)
				}
				if res.AbortedClients != 0 || !res.Check.OK {
					t.Fatalf("%s: aborted %v, check %+v", e.name, res.Errors, res.Check.Failures())
				}
				results[i] = res
			}
			loop, gor := results[0], results[1]
			if loop.Failed == 0 || loop.Retried <= loop.Failed || loop.Committed+loop.Failed != 60 {
				t.Errorf("scenario did not force both outcomes: committed %d failed %d retried %d retries %d",
					loop.Committed, loop.Failed, loop.Retried, loop.Retries)
			}
			type counts struct{ Committed, Failed, Retried, Retries, Skipped, Late int64 }
			c := func(r *RunResult) counts {
				return counts{r.Committed, r.Failed, r.Retried, r.Retries, r.Skipped, r.Late}
			}
			if c(loop) != c(gor) {
				t.Errorf("engines count differently: event loop %+v, goroutines %+v", c(loop), c(gor))
			}
			for i := range loop.Statements {
				l, g := loop.Statements[i], gor.Statements[i]
				if l.Failures != g.Failures || l.Retries != g.Retries || l.Latency.Count != g.Latency.Count {
					t.Errorf("%s: event loop %d failures %d retries %d ok, goroutines %d %d %d",
						l.Name, l.Failures, l.Retries, l.Latency.Count, g.Failures, g.Retries, g.Latency.Count)
				}
			}
		})
	}
}

// The schedule step both engines use: under --rate with --latency-limit,
// transactions already later than the limit are skipped and count towards
// -t; a deadline ends the client. Fake times, so nothing depends on the
// machine's speed.
func TestBookSkipsLateTransactions(t *testing.T) {
	def, _ := ScriptTPCB.def()
	rec := metrics.NewRecorder(kindNames(&def), counterNames...)
	start := time.Unix(1000, 0)
	opts := RunOptions{Clients: 1, Rate: 1000, LatencyLimit: 10 * time.Millisecond, Transactions: 200, MaxTries: 1, Seed: 7}
	b := newBook(rec.NewLocal(), &def, opts, 0, start, time.Time{})
	// The same schedule, to know which starts are late.
	sched := measure.NewPoisson(opts.Rate, opts.Clients, start, rand.New(rand.NewPCG(opts.Seed, 0)))

	now := start.Add(100 * time.Millisecond) // the client comes 100 ms late
	wantSkipped := 0
	for due := sched.Take(); now.Sub(due) > opts.LatencyLimit; due = sched.Take() {
		wantSkipped++
	}
	due, ok := b.next(now)
	if !ok || now.Sub(due) > opts.LatencyLimit {
		t.Fatalf("next after %d skips: due %s before now, ok %v", wantSkipped, now.Sub(due), ok)
	}
	if wantSkipped < 50 || b.done != wantSkipped {
		t.Errorf("skipped %d, want %d (about 90 at 1000/s over 90 ms)", b.done, wantSkipped)
	}
	// Far behind, the skips use up the -t count and the client ends.
	if _, ok := b.next(start.Add(time.Hour)); ok || b.done != 200 {
		t.Errorf("after an hour: ok %v, done %d, want false, 200", ok, b.done)
	}
	snap := rec.Interval()
	if got := snap.Counters[kindTxn][cntSkipped]; got != 200 {
		t.Errorf("skipped counter %d, want 200", got)
	}

	// A deadline ends the client before a transaction due after it.
	b = newBook(rec.NewLocal(), &def, RunOptions{Clients: 1, Rate: 1, MaxTries: 1, Seed: 7}, 0, start, start.Add(time.Millisecond))
	if _, ok := b.next(start); ok {
		t.Errorf("a transaction due after the deadline was started")
	}
}

// --max-tries and --latency-limit decide retries the same way for both
// engines; out of tries or over the limit, the transaction fails.
func TestBookRetries(t *testing.T) {
	def, _ := ScriptTPCB.def()
	rec := metrics.NewRecorder(kindNames(&def), counterNames...)
	start := time.Unix(1000, 0)
	b := newBook(rec.NewLocal(), &def, RunOptions{Clients: 1, MaxTries: 3, LatencyLimit: time.Second, Seed: 1}, 0, start, time.Time{})
	b.begin(start, start)
	if !b.retry(start, 2) || !b.retry(start, 2) || b.retry(start, 2) {
		t.Errorf("3 tries: want retry, retry, fail")
	}
	b.begin(start, start)
	if b.retry(start.Add(2*time.Second), 3) {
		t.Errorf("retried past the latency limit")
	}
	b.begin(start, start)
	b.retry(start, 4)
	b.committed(start.Add(2 * time.Second))
	s := rec.Interval()
	txn := s.Counters[kindTxn]
	if txn[cntRetries] != 3 || txn[cntFailures] != 2 || txn[cntRetried] != 2 || txn[cntLate] != 1 {
		t.Errorf("counters %v (retries, failures, retried, late = 3, 2, 2, 1)", txn)
	}
	if s.Counters[kindStmt(2)][cntFailures] != 1 || s.Counters[kindStmt(3)][cntFailures] != 1 || s.Counters[kindStmt(4)][cntRetries] != 1 {
		t.Errorf("per-statement counters: %v", s.Counters)
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
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			// One client sleeps in the trigger, the other waits for its
			// branch row lock: both have a statement in flight.
			go func() {
				waitForSleepers(t, dsn, 1)
				cancel()
			}()
			t0 := time.Now()
			res, err := Run(ctx, dsn, RunOptions{Clients: 2, Transactions: 1, Protocol: ProtocolPrepared, NoVacuum: true,
				GoroutinePerClient: e.goroutines})
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
		})
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
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			go func() {
				waitForSleepers(t, dsn, 1)
				execSQL(t, dsn, `select pg_terminate_backend(pid) from pg_stat_activity
					where application_name = 'pgoltp tpcb' and wait_event = 'PgSleep'
					and datname = current_database()`)
			}()
			res, err := Run(context.Background(), dsn, RunOptions{Clients: 1, Transactions: 1, Protocol: ProtocolPrepared,
				NoVacuum: true, NoCheck: true, GoroutinePerClient: e.goroutines})
			if err != nil {
				t.Fatal(err)
			}
			if res.AbortedClients != 0 || len(res.Outages) != 1 || !strings.Contains(res.Outages[0].Error, "terminating connection due to administrator command") {
				t.Fatalf("aborted %d (%v), outages %+v", res.AbortedClients, res.Errors, res.Outages)
			}
			if res.InDoubt != 1 || res.Committed != 0 || res.Outages[0].Restored.IsZero() {
				t.Errorf("in doubt %d, committed %d, outage %+v: want the one transaction in doubt and the connection back", res.InDoubt, res.Committed, res.Outages[0])
			}
		})
	}
}
