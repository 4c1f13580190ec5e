package advise

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// MeasureWALRate samples pg_current_wal_lsn twice, d apart, and returns the WAL
// bytes per second in between: run it while the real workload runs.
func MeasureWALRate(ctx context.Context, conn *pgx.Conn, d time.Duration) (float64, error) {
	var start string
	if err := conn.QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&start); err != nil {
		return 0, fmt.Errorf("reading the WAL position: %w", err)
	}
	t0 := time.Now()
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(d):
	}
	var bytes float64
	if err := conn.QueryRow(ctx, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::float8", start).Scan(&bytes); err != nil {
		return 0, fmt.Errorf("reading the WAL position: %w", err)
	}
	return bytes / time.Since(t0).Seconds(), nil
}
