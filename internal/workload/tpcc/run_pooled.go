package tpcc

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/field"
)

// A pooled data path (pgbouncer before 1.20 in transaction pooling, issue 31)
// refuses a client that sets a startup parameter it does not track, and a
// SET would stay on whichever server connection ran it: the run's isolation
// level and search_path cannot be the session's. The run then sends neither
// and goes ahead only where the server's own defaults are the run's: its
// default_transaction_isolation, and the public schema. Its statements go by
// the exec mode the pooler's DSN names (see cluster.PoolerDSN), which keeps
// no named prepared statement on a server connection.

// unpooledParams drops from cfg what it would set at connect.
func unpooledParams(cfg *pgx.ConnConfig) {
	delete(cfg.RuntimeParams, "default_transaction_isolation")
	delete(cfg.RuntimeParams, "search_path")
}

// checkPooledDefaults checks, on conn (straight to the server before the run
// is recorded, or through the pooler when it opens: a server connection of
// its pool), that the server's defaults give the run's isolation and schema.
func checkPooledDefaults(ctx context.Context, conn *pgx.Conn, opts RunOptions) error {
	if opts.Schema != "" && opts.Schema != DefaultSchema {
		return field.New("Schema", opts.Schema, "{} %s: the pooler cannot pass a search_path on to the server", opts.Schema).
			Fix("load into public, use --via direct, or a pgbouncer of 1.20 or later")
	}
	var level string
	if err := conn.QueryRow(ctx, "SHOW default_transaction_isolation").Scan(&level); err != nil {
		return fmt.Errorf("reading the server's default isolation: %w", err)
	}
	if want := isolationLevels[opts.Isolation]; level != want {
		return field.New("Isolation", opts.Isolation, "{} %s: the pooler cannot pass it on, and the server's default is %s", opts.Isolation, level).
			Fix("use --via direct, or a pgbouncer of 1.20 or later")
	}
	return nil
}
