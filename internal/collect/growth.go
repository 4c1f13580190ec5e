package collect

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultGrowthEvery is how often a session reads sizes and per-table
// autovacuum counts for the long-run panels (database, table and index size
// over time; autovacuum and autoanalyze runs per table). Once a minute costs
// nothing measurable and gives a week 10,080 points per series.
const DefaultGrowthEvery = time.Minute

// Metric names of the growth readings. Sizes are bytes; the autovacuum and
// autoanalyze counts are pg_stat_user_tables' cumulative counters (the
// report takes differences), keyed by table; bloat is pgstattuple_approx's
// free + dead share of the heap, in percent.
const (
	MetricDatabaseSize = "pg.db.size_bytes"
	MetricTableSize    = "pg.table.size_bytes"
	MetricIndexSize    = "pg.table.index_bytes"
	MetricAutovacuums  = "pg.table.autovacuum_count"
	MetricAutoanalyzes = "pg.table.autoanalyze_count"
	MetricBloat        = "pg.table.bloat_pct"
	MetricLongestXact  = "pg.xact.longest_s"
)

// growthSampler decides when the slow readings are due.
type growthSampler struct {
	every, bloatEvery time.Duration // bloatEvery 0: no bloat readings during the run
	last, lastBloat   time.Time
	warned            bool // a failed reading was reported
}

// due reports which readings to take at now: sizes (and counts), and bloat.
func (g *growthSampler) due(now time.Time) (sizes, bloat bool) {
	if g.every > 0 && (g.last.IsZero() || now.Sub(g.last) >= g.every) {
		sizes = true
		g.last = now
	}
	if g.bloatEvery > 0 && (g.lastBloat.IsZero() || now.Sub(g.lastBloat) >= g.bloatEvery) {
		bloat = true
		g.lastBloat = now
	}
	return sizes || bloat, bloat
}

// sampleGrowth reads the database size and the tracked tables' sizes and
// counters (and, with bloat, pgstattuple_approx under the usual time
// budget) into points.
func sampleGrowth(ctx context.Context, conn *pgx.Conn, bloat bool, add func(metric, key string, v float64)) error {
	var size int64
	if err := conn.QueryRow(ctx, `SELECT pg_database_size(current_database())`).Scan(&size); err != nil {
		return err
	}
	add(MetricDatabaseSize, "", float64(size))
	tables, err := readTables(ctx, conn, bloat)
	if err != nil {
		return err
	}
	for _, t := range tables {
		add(MetricTableSize, t.name, float64(t.table))
		add(MetricIndexSize, t.name, float64(t.index))
		add(MetricAutovacuums, t.name, float64(t.autovac))
		add(MetricAutoanalyzes, t.name, float64(t.autoanal))
		if bloat && t.bloat >= 0 {
			add(MetricBloat, t.name, t.bloat)
		}
	}
	return nil
}
