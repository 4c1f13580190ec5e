package experiment_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/experiment"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/restore"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/workload/ledger"
)

// TestStatementTimeoutStepRestored: a step whose session settings would
// cancel or refuse pgoltp's own statements (statement_timeout of 1ms, read
// only transactions, an empty search_path) fails its runs, but the restore
// still puts every value back, reloaded: a plain new session sees the old
// values and can work.
func TestStatementTimeoutStepRestored(t *testing.T) {
	c := pgtest.Cluster(t)
	dsn := pgtest.NewDatabase(t)
	names := []string{"statement_timeout", "lock_timeout", "default_transaction_read_only", "idle_in_transaction_session_timeout"}
	before := readSettings(t, dsn, names...)
	plan, err := experiment.ParsePlan(strings.NewReader(`
name: session settings
workload: {kind: ledger, clients: 2}
duration: 2s
repetitions: 2
steps:
  - name: everything cancelled
    settings: {statement_timeout: 1, lock_timeout: 1, default_transaction_read_only: on, idle_in_transaction_session_timeout: 1}
`))
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	e := &experiment.Experiment{Plan: plan, Workload: ledger.Ledger{Clients: 2, Accounts: 500}, Server: c, DSN: dsn, Log: &log}
	rep, runErr := e.Run(context.Background())
	if rep == nil || !rep.Restored {
		t.Fatalf("the settings were not restored (run: %v): %+v\n%s", runErr, rep, log.String())
	}
	if after := readSettings(t, dsn, names...); !equal(after, before) {
		t.Fatalf("after the experiment %v, before %v", after, before)
	}
	// A session that pins nothing works again: the reload happened.
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "CREATE TEMP TABLE works AS SELECT pg_sleep(0.02)::text AS slept"); err != nil {
		t.Fatalf("a new session after the restore: %v", err)
	}
}

// TestRestoreAfterRestartReconnects: restoring a value that needs a restart
// (shared_buffers, set with ALTER SYSTEM before) restarts the server, and the
// restore goes on with new sessions: no "broken pipe", and the value is back.
func TestRestoreAfterRestartReconnects(t *testing.T) {
	c := pgtest.Cluster(t)
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	orig := readSettings(t, dsn, "shared_buffers")["shared_buffers"]
	t.Cleanup(func() {
		if _, err := c.Apply(ctx, map[string]string{"shared_buffers": orig}); err != nil {
			t.Error(err)
		}
	})
	if _, err := c.Apply(ctx, map[string]string{"shared_buffers": "40MB"}); err != nil {
		t.Fatal(err)
	}
	before := live(t, dsn, "shared_buffers")
	if !before["shared_buffers"].FromAutoConf() {
		t.Skipf("shared_buffers comes from %q, not postgresql.auto.conf: this server cannot show the case", before["shared_buffers"].SourceFile)
	}
	if restarted, err := c.Apply(ctx, map[string]string{"shared_buffers": "48MB"}); err != nil || !restarted {
		t.Fatalf("the step's shared_buffers: restarted %v, %v", restarted, err)
	}
	if err := restore.Settings(ctx, c, dsn, before, []string{"shared_buffers"}); err != nil {
		t.Fatalf("restore after a restart: %v", err)
	}
	if got := readSettings(t, dsn, "shared_buffers")["shared_buffers"]; got != "40MB" {
		t.Fatalf("shared_buffers after the restore: %s, want 40MB", got)
	}
}

func live(t *testing.T, dsn string, names ...string) map[string]settings.Live {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	l, _, err := settings.ReadServer(context.Background(), conn, names...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
