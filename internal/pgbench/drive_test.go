package pgbench

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// countingSink counts what a client's sink is given.
type countingSink struct {
	statements map[int]int
	retries    int
	committed  int
	skipped    int
	lags       int
}

func (s *countingSink) Statement(sql int, d time.Duration) { s.statements[sql]++ }
func (s *countingSink) Retry(int)                          { s.retries++ }
func (s *countingSink) Transaction(t Tx) {
	switch {
	case t.Skipped:
		s.skipped++
	case !t.Failed:
		s.committed++
		if t.Paced {
			s.lags++
		}
	}
}

// lateSchedule is a client's schedule whose first late Takes are an hour
// behind (skipped under a latency limit), and the rest due now.
type lateSchedule struct{ late int }

func (s *lateSchedule) Take() time.Time {
	if s.late > 0 {
		s.late--
		return time.Now().Add(-time.Hour)
	}
	return time.Now()
}

// countBudget says yes n times over all clients.
type countBudget struct{ left atomic.Int64 }

func (b *countBudget) Take() bool { return b.left.Add(-1) >= 0 }

// driveDatabase is a database loaded by pgbench -i -s 1 and n connections
// to it.
func driveDatabase(t *testing.T, n int) (string, []*pgconn.PgConn) {
	t.Helper()
	dsn := pgtest.NewDatabase(t)
	var e bytes.Buffer
	if code := Main(context.Background(), []string{"-i", "-q", "-s", "1", dsn}, Env{Stdout: &e, Stderr: &e, Getenv: os.Getenv}); code != 0 {
		t.Fatalf("init: %s", e.String())
	}
	conns := make([]*pgconn.PgConn, n)
	for i := range conns {
		c, err := pgconn.Connect(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	return dsn, conns
}

func tpcbLike(t *testing.T) Script {
	b, err := findBuiltin(logger{w: &bytes.Buffer{}}, "tpcb-like")
	if err != nil {
		t.Fatal(err)
	}
	return Script{Desc: b.Desc, Text: b.Text, Weight: 1, Builtin: true}
}

// TestDriveHooks: the built-in TPC-B run through Drive's hooks on a real
// server: each client's sink gets every SQL statement of every committed
// transaction by its number, the schedule's late slots are skipped under
// the latency limit and paced ones carry a lag, the budget bounds the
// transactions of all clients together (skipped ones included), and the
// rows written are the committed transactions'.
func TestDriveHooks(t *testing.T) {
	dsn, conns := driveDatabase(t, 3)
	sinks := []*countingSink{{statements: map[int]int{}}, {statements: map[int]int{}}, {statements: map[int]int{}}}
	budget := &countBudget{}
	budget.left.Store(100)
	d := &Drive{Scripts: []Script{tpcbLike(t)}, QueryMode: "prepared", Jobs: 2, MaxTries: 1, LatencyLimit: time.Second,
		Scale: 1, RandomSeed: 5, Start: time.Now(), Conns: conns, Budget: budget}
	for i, s := range sinks {
		d.Sinks = append(d.Sinks, s)
		d.Schedules = append(d.Schedules, &lateSchedule{late: 2 * (i + 1)})
	}
	errs, err := d.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	committed, skipped := 0, 0
	for i, s := range sinks {
		if errs[i] != nil {
			t.Fatalf("client %d: %v", i, errs[i])
		}
		committed += s.committed
		skipped += s.skipped
		if s.skipped != 2*(i+1) || s.lags != s.committed {
			t.Errorf("client %d: skipped %d, want %d; %d lags for %d commits", i, s.skipped, 2*(i+1), s.lags, s.committed)
		}
		if len(s.statements) != 7 {
			t.Errorf("client %d: statements %v, want the script's 7 SQL commands", i, s.statements)
		}
		for sql, n := range s.statements {
			if n != s.committed {
				t.Errorf("client %d: statement %d succeeded %d times for %d commits", i, sql, n, s.committed)
			}
		}
	}
	if committed+skipped != 100 {
		t.Errorf("committed %d + skipped %d, want the budget's 100", committed, skipped)
	}
	if rows := sqlText(t, dsn, "select count(*)::text from pgbench_history"); rows != strconv.Itoa(committed) {
		t.Errorf("%s history rows for %d committed", rows, committed)
	}
}

// TestDriveReconnects: a client whose backend is terminated mid-statement
// is given to Reconnect, goes on on the new connection and does its -t
// (the transaction in flight counts as run, its outcome in doubt), without
// aborting, and the loop's other client does its own.
func TestDriveReconnects(t *testing.T) {
	dsn, conns := driveDatabase(t, 2)
	sqlExec(t, dsn, `create function slow() returns trigger language plpgsql as $$
		begin if current_setting('application_name') = 'victim' then perform pg_sleep(60); end if; return new; end $$`,
		`create trigger slow before insert on pgbench_history for each row execute function slow()`)
	if err := conns[0].Exec(context.Background(), "set application_name = victim").Close(); err != nil {
		t.Fatal(err)
	}
	go func() {
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if sqlText(t, dsn, `select count(pg_terminate_backend(pid))::text from pg_stat_activity
				where application_name = 'victim' and wait_event = 'PgSleep'`) != "0" {
				return
			}
		}
	}()
	var lost atomic.Value
	sinks := []*countingSink{{statements: map[int]int{}}, {statements: map[int]int{}}}
	d := &Drive{Scripts: []Script{tpcbLike(t)}, QueryMode: "simple", Jobs: 1, MaxTries: 1, Transactions: 20, Scale: 1,
		RandomSeed: 1, Start: time.Now(), Conns: conns, Sinks: []Sink{sinks[0], sinks[1]},
		Reconnect: func(ctx context.Context, client int, err error) (*pgconn.PgConn, error) {
			lost.Store(err.Error())
			return pgconn.Connect(ctx, dsn)
		}}
	errs, err := d.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("errors %v", errs)
	}
	msg, _ := lost.Load().(string)
	if !strings.Contains(msg, "terminating connection due to administrator command") {
		t.Errorf("Reconnect was given %q, want the server's FATAL", msg)
	}
	if sinks[0].committed != 19 || sinks[1].committed != 20 {
		t.Errorf("committed %d and %d, want 19 (one in doubt) and 20", sinks[0].committed, sinks[1].committed)
	}
}
