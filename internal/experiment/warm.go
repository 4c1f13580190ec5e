package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/pgoltp/pgoltp/internal/adminconn"
)

// WarmCache reads the tables and indexes of the database at dsn into shared
// buffers with pg_prewarm, smallest first, as many as fit in shared_buffers,
// and returns the bytes read.
//
// A restart empties shared buffers. A short measured run right after it
// measures a cold cache, so a larger shared_buffers looks worse than the
// default it is compared with, the opposite of what it does in steady state.
// Runs after a restart (or a reload of the data) call this before their
// unmeasured warm-up run, so that both arms of a comparison start warm.
//
// The extension is created when missing (it ships with PostgreSQL's contrib
// and with pgoltp's managed builds). When it cannot be, the error says so
// and the caller goes on with the warm-up run alone.
func WarmCache(ctx context.Context, dsn string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	conn, err := adminconn.Connect(ctx, dsn)
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_prewarm"); err != nil {
		return 0, fmt.Errorf("pg_prewarm is not available: %w", err)
	}
	var blocks, blockSize int64
	err = conn.QueryRow(ctx, warmCacheSQL).Scan(&blocks, &blockSize)
	if err != nil {
		return 0, fmt.Errorf("pg_prewarm: %w", err)
	}
	return blocks * blockSize, nil
}

// warmCacheSQL prewarms the user relations (tables, their TOAST tables,
// indexes, materialized views) whose running total of sizes, smallest first, fits in
// shared_buffers. Small relations are the hot ones in OLTP (warehouse,
// district, branches, the upper levels of every index), so they go first.
const warmCacheSQL = `
WITH user_rels AS (
	SELECT c.oid, c.reltoastrelid
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind IN ('r', 'i', 'm') AND c.relpersistence <> 't'
	  AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
	  AND n.nspname NOT LIKE 'pg\_temp\_%' AND n.nspname NOT LIKE 'pg\_toast\_temp\_%'
), rels AS (
	SELECT oid, pg_relation_size(oid) AS bytes FROM user_rels
	UNION ALL
	SELECT reltoastrelid, pg_relation_size(reltoastrelid) FROM user_rels WHERE reltoastrelid <> 0
), budget AS (
	SELECT setting::bigint * current_setting('block_size')::bigint AS bytes
	FROM pg_settings WHERE name = 'shared_buffers'
), ordered AS (
	SELECT oid, bytes, sum(bytes) OVER (ORDER BY bytes, oid) AS running FROM rels WHERE bytes > 0
)
SELECT coalesce(sum(pg_prewarm(o.oid::regclass)), 0)::bigint, current_setting('block_size')::bigint
FROM ordered o, budget b
WHERE o.running <= b.bytes`

// Checkpoint runs CHECKPOINT on the server at dsn, so that the run after it
// starts at the same point of the checkpoint cycle as every other run.
//
// After a checkpoint every page's first change writes a full-page image to
// WAL, so a run's cost depends on where in the cycle it falls: one that a
// timed checkpoint lands in runs slower than its neighbours for no reason
// of its own, and one right after a restart (whose shutdown checkpoint
// starts a new cycle) pays for full-page images that a run in the middle
// of a cycle does not. Runs that compare settings start right after one,
// all alike; their warm-up run takes the first burst of full-page images.
// It returns the location of the checkpoint, from the control file.
func Checkpoint(ctx context.Context, dsn string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	conn, err := adminconn.Connect(ctx, dsn)
	if err != nil {
		return "", err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
		return "", fmt.Errorf("CHECKPOINT (needs a superuser, or pg_checkpoint on PostgreSQL 15+): %w", err)
	}
	var lsn string
	if err := conn.QueryRow(ctx, "SELECT checkpoint_lsn::text FROM pg_control_checkpoint()").Scan(&lsn); err != nil {
		return "", err
	}
	return lsn, nil
}
