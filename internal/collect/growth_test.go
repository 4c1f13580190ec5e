package collect_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestGrowthAndLongestTransaction: during a session the collector reads
// sizes, per-table autovacuum counters and (at its own interval) bloat, and
// sees how long the oldest open transaction of a client has been running.
func TestGrowthAndLongestTransaction(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE TABLE grower (id int primary key, pad text);
		INSERT INTO grower SELECT g, repeat('x', 100) FROM generate_series(1, 2000) g`); err != nil {
		t.Fatal(err)
	}
	s, err := collect.Start(ctx, dsn, collect.Options{Interval: 100 * time.Millisecond, NoOS: true,
		GrowthEvery: 200 * time.Millisecond, BloatEvery: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	holder, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	tx, err := holder.Begin(ctx) // an open transaction the collector must see age
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO grower SELECT g, repeat('y', 100) FROM generate_series(2001, 20000) g`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	_ = tx.Rollback(ctx)
	samples, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	byMetric := map[string][]float64{}
	for _, p := range samples.Points {
		if p.Key == "" || p.Key == "public.grower" {
			byMetric[p.Metric] = append(byMetric[p.Metric], p.Value)
		}
	}
	for _, m := range []string{collect.MetricDatabaseSize, collect.MetricTableSize, collect.MetricIndexSize,
		collect.MetricAutovacuums, collect.MetricAutoanalyzes, collect.MetricBloat} {
		if len(byMetric[m]) < 2 {
			t.Errorf("%s: %d readings of public.grower in 2 s, want several", m, len(byMetric[m]))
		}
	}
	if sz := byMetric[collect.MetricTableSize]; len(sz) >= 2 && sz[len(sz)-1] <= sz[0] {
		t.Errorf("the table grew tenfold but its size readings did not: %v", sz)
	}
	if b := byMetric[collect.MetricBloat]; len(b) > len(byMetric[collect.MetricTableSize]) {
		t.Errorf("%d bloat readings, more than the %d size readings: bloat has its own, longer interval", len(b), len(byMetric[collect.MetricTableSize]))
	}
	longest := 0.0
	for _, v := range byMetric[collect.MetricLongestXact] {
		longest = max(longest, v)
	}
	if longest < 1 {
		t.Errorf("longest transaction seen %.2f s; one was open for 2 s", longest)
	}
}
