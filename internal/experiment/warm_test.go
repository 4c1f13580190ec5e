package experiment

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestWarmCacheReadsWhatFits checks the selection: every user relation that
// fits in shared_buffers, smallest first, is read whole, and a relation too
// big for what is left is not read at all.
func TestWarmCacheReadsWhatFits(t *testing.T) {
	ctx := context.Background()
	conn, dsn := pgtest.Conn(t)
	var sharedBuffers int64
	if err := conn.QueryRow(ctx, `SELECT setting::bigint * current_setting('block_size')::bigint
		FROM pg_settings WHERE name = 'shared_buffers'`).Scan(&sharedBuffers); err != nil {
		t.Fatal(err)
	}
	// small: a few pages with a primary key; big: larger than shared_buffers
	// on its own, built without writing it all through the buffer cache.
	for _, q := range []string{
		`CREATE TABLE small (id int PRIMARY KEY, pad text)`,
		`INSERT INTO small SELECT g, repeat('x', 200) FROM generate_series(1, 2000) g`,
		`CREATE UNLOGGED TABLE big (pad text) WITH (fillfactor = 10)`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// Fill big past shared_buffers: fillfactor 10 makes each row its own page.
	rows := sharedBuffers/8192 + 100
	if _, err := conn.Exec(ctx, `INSERT INTO big SELECT repeat('y', 900) FROM generate_series(1, $1)`, rows); err != nil {
		t.Fatal(err)
	}
	var small, big int64
	if err := conn.QueryRow(ctx, `SELECT pg_relation_size('small') + pg_relation_size('small_pkey'), pg_relation_size('big')`).Scan(&small, &big); err != nil {
		t.Fatal(err)
	}
	if big <= sharedBuffers {
		t.Fatalf("test setup: big is %d bytes, not more than shared_buffers %d", big, sharedBuffers)
	}
	got, err := WarmCache(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if got != small {
		t.Errorf("WarmCache read %d bytes, want %d (small and its index; big, %d bytes, does not fit %d)", got, small, big, sharedBuffers)
	}
	// A second call reads the same: the selection does not depend on what
	// is cached.
	if again, err := WarmCache(ctx, dsn); err != nil || again != got {
		t.Errorf("second WarmCache: %d, %v; want %d", again, err, got)
	}
	var ext string
	if err := conn.QueryRow(ctx, `SELECT extname FROM pg_extension WHERE extname = 'pg_prewarm'`).Scan(&ext); err == pgx.ErrNoRows || err != nil {
		t.Errorf("pg_prewarm not installed after WarmCache: %v", err)
	}
}
