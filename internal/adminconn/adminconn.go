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
	"regexp"

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

// newer are pinned too, but older servers do not know them and refuse a
// startup packet that names them: a connection is retried without the one
// the server named.
var newer = map[string]string{
	"idle_session_timeout": "0", // PostgreSQL 14
	"transaction_timeout":  "0", // PostgreSQL 17
}

// Config parses dsn into a connection config with the session settings
// pinned. Callers may override a pinned value (the collector bounds its
// statements) before connecting with ConnectConfig.
func Config(dsn string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	for _, m := range []map[string]string{pinned, newer} {
		for name, value := range m {
			cfg.RuntimeParams[name] = value
		}
	}
	return cfg, nil
}

// Connect opens an administrative session to dsn.
func Connect(ctx context.Context, dsn string) (*pgx.Conn, error) {
	cfg, err := Config(dsn)
	if err != nil {
		return nil, err
	}
	return ConnectConfig(ctx, cfg)
}

var unknownParam = regexp.MustCompile(`unrecognized configuration parameter "([a-z_]+)"`)

// ConnectConfig connects with cfg, leaving out a pinned setting the server
// is too old to know. cfg is not changed.
func ConnectConfig(ctx context.Context, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	cfg = cfg.Copy()
	for {
		conn, err := pgx.ConnectConfig(ctx, cfg)
		var pgErr *pgconn.PgError
		if err == nil || !errors.As(err, &pgErr) || pgErr.Code != "42704" || !dropUnknown(cfg, pgErr.Message) {
			return conn, err
		}
	}
}

// dropUnknown removes from cfg the newer setting an "unrecognized
// configuration parameter" message names, or all of them when the message
// (perhaps translated) names none; false when there is nothing to remove.
func dropUnknown(cfg *pgx.ConnConfig, message string) bool {
	if m := unknownParam.FindStringSubmatch(message); m != nil {
		if _, ok := newer[m[1]]; ok {
			if _, sent := cfg.RuntimeParams[m[1]]; sent {
				delete(cfg.RuntimeParams, m[1])
				return true
			}
		}
	}
	dropped := false
	for name := range newer {
		if _, sent := cfg.RuntimeParams[name]; sent {
			delete(cfg.RuntimeParams, name)
			dropped = true
		}
	}
	return dropped
}
