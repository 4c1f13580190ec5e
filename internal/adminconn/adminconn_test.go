package adminconn_test

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/pgoltp/pgoltp/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// TestPinnedAgainstServerWideSettings: with a server-wide
// statement_timeout of 1ms and read-only transactions by default, a plain
// session cannot sleep 50ms nor write, an administrative one can.
func TestPinnedAgainstServerWideSettings(t *testing.T) {
	pgtest.Cluster(t) // ALTER SYSTEM on a server pgoltp owns only
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	admin, err := adminconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	exec := func(conn *pgx.Conn, sql string) error {
		_, err := conn.Exec(ctx, sql)
		return err
	}
	t.Cleanup(func() {
		admin, err := adminconn.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close(ctx)
		for _, q := range []string{"ALTER SYSTEM RESET statement_timeout", "ALTER SYSTEM RESET default_transaction_read_only", "SELECT pg_reload_conf()"} {
			if err := exec(admin, q); err != nil {
				t.Error(err)
			}
		}
	})
	for _, q := range []string{"ALTER SYSTEM SET statement_timeout = 1", "ALTER SYSTEM SET default_transaction_read_only = on", "SELECT pg_reload_conf()"} {
		if err := exec(admin, q); err != nil {
			t.Fatal(err)
		}
	}
	plain, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close(ctx)
	if err := exec(plain, "SELECT pg_sleep(0.05)"); err == nil {
		t.Fatal("a plain session was not cancelled: the server-wide statement_timeout is not in effect, the test shows nothing")
	}
	fresh, err := adminconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close(ctx)
	for _, q := range []string{"SELECT pg_sleep(0.05)", "CREATE TABLE written (x int)", "ALTER SYSTEM SET commit_siblings = 6", "ALTER SYSTEM RESET commit_siblings"} {
		if err := exec(fresh, q); err != nil {
			t.Errorf("administrative session: %s: %v", q, err)
		}
	}
	// The newer settings are pinned where the server has them.
	var num int
	if err := fresh.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&num); err != nil {
		t.Fatal(err)
	}
	if num >= 140000 {
		var v string
		if err := fresh.QueryRow(ctx, "SELECT setting || ':' || source FROM pg_settings WHERE name = 'idle_session_timeout'").Scan(&v); err != nil || v != "0:session" {
			t.Errorf("idle_session_timeout in an administrative session: %q %v, want 0 set by the session", v, err)
		}
	}
	// A session that must see a setting's server-wide value leaves it out.
	cfg, err := adminconn.Config(dsn, "statement_timeout")
	if err != nil {
		t.Fatal(err)
	}
	// Its own SETs run under the server's 1ms too, and a busy machine
	// cancels some: each connection must still open.
	var observer *pgx.Conn
	for range 200 {
		if observer != nil {
			observer.Close(ctx)
		}
		if observer, err = pgx.ConnectConfig(ctx, cfg); err != nil {
			t.Fatal(err)
		}
	}
	defer observer.Close(ctx)
	var v, ro string
	// Under the server's 1ms a busy machine may cancel even this: retry.
	for try := 0; ; try++ {
		err := observer.QueryRow(ctx, "SELECT current_setting('statement_timeout'), current_setting('default_transaction_read_only')").Scan(&v, &ro)
		if err == nil {
			break
		}
		if try == 20 {
			t.Fatal(err)
		}
	}
	if v != "1ms" || ro != "off" {
		t.Errorf("observer sees statement_timeout %s (want the server's 1ms), default_transaction_read_only %s (want it pinned off)", v, ro)
	}
}

// TestDSNSettingsWin: what the connection string asks for (a TPC-C run's
// schema in search_path) is kept; only what it leaves to the server is
// pinned.
func TestDSNSettingsWin(t *testing.T) {
	cfg, err := adminconn.Config("postgres://u@h/db?search_path=tpcc_a&statement_timeout=5s")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RuntimeParams["search_path"] != "tpcc_a" || cfg.RuntimeParams["statement_timeout"] != "5s" || cfg.RuntimeParams["lock_timeout"] != "0" {
		t.Fatalf("runtime params %v", cfg.RuntimeParams)
	}
}
