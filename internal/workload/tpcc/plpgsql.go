package tpcc

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// plpgsqlFunctions is the server path: the five transactions as PL/pgSQL
// functions (plpgsql.sql).
//
//go:embed plpgsql.sql
var plpgsqlFunctions string

// errItemNotFound is the SQLSTATE pgoltp_new_order raises for the unused item
// of clause 2.4.1.4; the transaction has rolled back.
const errItemNotFound = "TPC01"

// InstallFunctions creates or replaces the server-path functions in the
// first schema of conn's search_path (the TPC-C schema).
func InstallFunctions(ctx context.Context, conn *pgx.Conn) error {
	// Serialize concurrent installs: CREATE OR REPLACE races on pg_proc.
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(775530)"); err != nil {
		return fmt.Errorf("installing the server-path functions: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(775530)") //nolint:errcheck
	if _, err := conn.Exec(ctx, plpgsqlFunctions); err != nil {
		return fmt.Errorf("installing the server-path functions: %w", err)
	}
	return nil
}
