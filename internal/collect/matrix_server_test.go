package collect_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// Every query of the matrix for the test server's major runs there (run the
// package with PGOLTP_TEST_PG=10 or 18 to check another major), and the
// extensions the collectors and experiments use can be created.
func TestMatrixQueriesRunOnServer(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var num int
	if err := conn.QueryRow(ctx, `SELECT current_setting('server_version_num')::int`).Scan(&num); err != nil {
		t.Fatal(err)
	}
	major := num / 10000
	for _, ext := range []string{"pg_stat_statements", "pgstattuple", "pg_prewarm"} {
		if err := collect.EnsureExtension(ctx, conn, ext); err != nil {
			t.Errorf("PostgreSQL %d: extension %s: %v", major, ext, err)
		}
	}
	entries := collect.QueriesFor(major)
	for _, e := range entries {
		rows, err := conn.Query(ctx, e.SQL, e.Args...)
		if err == nil {
			for rows.Next() {
			}
			rows.Close()
			err = rows.Err()
		}
		if err != nil {
			t.Errorf("PostgreSQL %d: %s: %v", major, e.Name, err)
		}
	}
	t.Logf("PostgreSQL %d: %d statistics queries ran", major, len(entries))
}
