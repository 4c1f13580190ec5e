package tpcc

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// loadForTest loads w warehouses into a fresh database and returns its DSN.
func loadForTest(t *testing.T, opts LoadOptions) (string, LoadStats) {
	t.Helper()
	dsn := pgtest.NewDatabase(t)
	if opts.Workers == 0 {
		opts.Workers = 2
	}
	st, err := Load(context.Background(), dsn, opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return dsn, st
}

// pgtestDatabase returns the DSN of a fresh empty database.
func pgtestDatabase(t *testing.T) string { return pgtest.NewDatabase(t) }

func connect(t *testing.T, dsn, schema string) *pgx.Conn {
	t.Helper()
	d, err := WithSearchPath(dsn, schema)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
