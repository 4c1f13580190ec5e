// Package adminconn opens pgoltp's own administrative sessions: reading
// pg_settings, applying and restoring settings, checkpoints, the collectors'
// connections, check queries. Each pins the session settings that a
// server-wide value (an experiment's step, a tuner's trial, a careless
// ALTER SYSTEM) could otherwise turn against it: a statement_timeout of 1ms
// would cancel the restore itself, default_transaction_read_only would refuse
// ALTER SYSTEM, exit_on_error would end the session at the first error.
//
// The workload's own connections are not opened here: they must see the
// server's settings, which are what an experiment measures.
//
// It must not know any workload, the cluster or the store.
package adminconn

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pinned are the session settings every administrative session starts with,
// sent in the startup packet so that no server-wide value applies to them,
// not even to the first statement. All exist in PostgreSQL 10 and later.
var pinned = map[string]string{
	"statement_timeout":                   "0",
	"lock_timeout":                        "0",
	"idle_in_transaction_session_timeout": "0",
	"default_transaction_read_only":       "off",
	"default_transaction_isolation":       "read committed",
	"default_transaction_deferrable":      "off",
	"search_path":                         `"$user", public`,
	"exit_on_error":                       "off",
}

// newer are pinned too, on the servers that know them: an older server
// refuses a startup packet that names them (and logs a FATAL line, which
// the managed cluster reads to explain a failed start), so they are set
// right after connecting instead.
var newer = []struct {
	name, value string
	since       int // major
}{
	{"idle_session_timeout", "0", 14},
	{"transaction_timeout", "0", 17},
}

// Config parses dsn into a connection config (for pgx.ConnectConfig) with
// the session settings pinned, but those named in except (a session that
// must see their server-wide values) and those dsn sets itself: a
// search_path naming a TPC-C schema is what the session is for, not a
// server-wide value to defend against. Callers may override a pinned value
// (the collector bounds its statements).
func Config(dsn string, except ...string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	for name, value := range pinned {
		if _, asked := cfg.RuntimeParams[name]; !asked && !slices.Contains(except, name) {
			cfg.RuntimeParams[name] = value
		}
	}
	skip := slices.Clone(except)
	for _, n := range newer {
		if _, asked := cfg.RuntimeParams[n.name]; asked {
			skip = append(skip, n.name)
		}
	}
	cfg.AfterConnect = func(ctx context.Context, conn *pgconn.PgConn) error { return pinNewer(ctx, conn, skip) }
	return cfg, nil
}

// pinNewer sets the newer settings the server knows, but those in except.
// (An older server refused a DSN naming one already.)
func pinNewer(ctx context.Context, conn *pgconn.PgConn, except []string) error {
	major := serverMajor(conn.ParameterStatus("server_version"))
	for _, n := range newer {
		if major < n.since || slices.Contains(except, n.name) {
			continue
		}
		if err := set(ctx, conn, n.name, n.value); err != nil {
			return fmt.Errorf("pinning %s: %w", n.name, err)
		}
	}
	return nil
}

// queryCanceled is the SQLSTATE of a statement a timeout cancelled.
const queryCanceled = "57014"

// set runs SET name = value. A session that must see the server-wide
// statement_timeout runs its SETs under it too, and a busy machine can let
// a 1ms timeout cancel one: SET is idempotent, so it is tried again.
func set(ctx context.Context, conn *pgconn.PgConn, name, value string) error {
	for try := 1; ; try++ {
		err := conn.Exec(ctx, "SET "+name+" = "+value).Close()
		var pgErr *pgconn.PgError
		if err == nil || ctx.Err() != nil || try == 50 || !errors.As(err, &pgErr) || pgErr.Code != queryCanceled {
			return err
		}
	}
}

// serverMajor is the major of a server_version such as "17.2 (Debian ...)"
// or "18beta1"; 0 when it has none.
func serverMajor(version string) int {
	major := 0
	for _, r := range version {
		if r < '0' || r > '9' {
			break
		}
		major = major*10 + int(r-'0')
	}
	return major
}

// Connect opens an administrative session to dsn.
func Connect(ctx context.Context, dsn string) (*pgx.Conn, error) {
	cfg, err := Config(dsn)
	if err != nil {
		return nil, err
	}
	return pgx.ConnectConfig(ctx, cfg)
}
