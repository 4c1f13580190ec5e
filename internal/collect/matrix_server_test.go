package collect_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// queryColumns is how many columns each named query returns: the callers
// scan that many, whichever variant the major runs.
var queryColumns = map[collect.Query]int{
	collect.CheckpointCounts: 3, collect.BufferWrites: 4, collect.WALSinceReset: 2,
	collect.WALImages: 3, collect.WALBuffersFull: 2, collect.DatabaseSnapshot: 8,
}

// Every query of the matrix runs on every major from 10 to 18 (downloaded
// once into the shared cache, each in a lab of its own; with -short, only the
// test server's major), the named queries return one row of the columns
// their callers scan, and the extensions the collectors and experiments use
// can be created.
func TestMatrixQueriesRunOnServer(t *testing.T) {
	majors := []int{0} // the shared test server
	if !testing.Short() {
		majors = []int{10, 11, 12, 13, 14, 15, 16, 17, 18}
	}
	for _, major := range majors {
		t.Run("pg"+strconv.Itoa(major), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			conn := matrixServer(t, ctx, major)
			runMatrix(t, ctx, conn)
			if major != 0 { // a server of its own: its configuration may change
				checkPendingRestart(t, ctx, conn)
			}
		})
	}
}

// matrixServer connects to a server of major (0: a database of the shared
// test server), started in a lab of its own and destroyed afterwards.
func matrixServer(t *testing.T, ctx context.Context, major int) *pgx.Conn {
	t.Helper()
	var dsn string
	if major == 0 {
		dsn = pgtest.NewDatabase(t)
	} else {
		c, err := cluster.Up(ctx, cluster.Options{Lab: pgtest.LabDir(t), Major: major})
		if err != nil {
			t.Fatalf("PostgreSQL %d: %v", major, err)
		}
		t.Cleanup(func() { c.Destroy(context.Background()) })
		dsn = c.DSN("postgres")
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// runMatrix runs every query the matrix has for the server's major.
func runMatrix(t *testing.T, ctx context.Context, conn *pgx.Conn) {
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
		n, columns := 0, 0
		if err == nil {
			columns = len(rows.FieldDescriptions())
			for rows.Next() {
				n++
			}
			rows.Close()
			err = rows.Err()
		}
		if err != nil {
			t.Errorf("PostgreSQL %d: %s: %v", major, e.Name, err)
			continue
		}
		if want, named := queryColumns[collect.Query(e.Name)]; named && (n != 1 || columns != want) {
			t.Errorf("PostgreSQL %d: %s gave %d rows of %d columns, want 1 row of %d", major, e.Name, n, columns, want)
		}
	}
	t.Logf("PostgreSQL %d: %d statistics queries ran", major, len(entries))
}

// checkPendingRestart: a postmaster setting changed and reloaded waits for a
// restart, a reloadable one does not, and asking about no names asks about all.
func checkPendingRestart(t *testing.T, ctx context.Context, conn *pgx.Conn) {
	for _, q := range []string{"ALTER SYSTEM SET shared_buffers = '48MB'", "ALTER SYSTEM SET work_mem = '5MB'", "SELECT pg_reload_conf()"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	time.Sleep(150 * time.Millisecond) // the reload is asynchronous
	named, err := settings.PendingRestart(ctx, conn, "shared_buffers", "work_mem")
	if err != nil || !slices.Equal(named, []string{"shared_buffers"}) {
		t.Errorf("PendingRestart(shared_buffers, work_mem) = %v, %v; want [shared_buffers]", named, err)
	}
	all, err := settings.PendingRestart(ctx, conn)
	if err != nil || !slices.Contains(all, "shared_buffers") || slices.Contains(all, "work_mem") {
		t.Errorf("PendingRestart() = %v, %v; want shared_buffers and not work_mem", all, err)
	}
	if none, err := settings.PendingRestart(ctx, conn, "work_mem"); err != nil || len(none) != 0 {
		t.Errorf("PendingRestart(work_mem) = %v, %v; want none", none, err)
	}
}
