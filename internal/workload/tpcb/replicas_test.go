package tpcb

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestRunThroughPoolerWithSyncStandby starts a primary with one synchronous
// standby and pgbouncer (issue 31), runs TPC-B through the pooler, and checks
// that the standby streams, that pgbouncer carried the transactions, and
// that the standby's accounts sum to the primary's once it has caught up.
func TestRunThroughPoolerWithSyncStandby(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := cluster.Up(ctx, cluster.Options{Lab: pgtest.LabDir(t), Standbys: 1, Sync: cluster.SyncQuorum, Pooler: cluster.PoolerPgBouncer})
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	destroyed := false
	t.Cleanup(func() {
		if !destroyed {
			c.Destroy(context.Background())
		}
	})
	if err := c.EnsureDatabase(ctx, "pgoltp"); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(ctx, c.DSN("pgoltp"), LoadOptions{Scale: 1}); err != nil {
		t.Fatal(err)
	}
	// The collectors go straight to the primary and to pgbouncer's console.
	sess, err := collect.Start(ctx, c.DSN("pgoltp"), collect.Options{Interval: 200 * time.Millisecond, NoOS: true, NoBloat: true, GrowthEvery: -1, PoolerDSN: c.PoolerAdminDSN()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, c.PoolerDSN("pgoltp"), RunOptions{Clients: 4, Transactions: 150})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // a tick after the last transaction
	samples, err := sess.Stop()
	if err != nil {
		t.Fatal(err)
	}
	wantSampled(t, samples, "pg.replication.replay_lag_s", "standby1", false)
	wantSampled(t, samples, "pg.replication.replay_lag_mb", "standby1", false)
	wantSampled(t, samples, "pooler.clients_active", "pgoltp", false)
	wantSampled(t, samples, "pooler.xacts_per_s", "pgoltp", true)
	if res.Committed != 600 || res.Check == nil || !res.Check.OK {
		t.Fatalf("through the pooler: committed %d (want 600), check %+v, errors %v", res.Committed, res.Check, res.Errors)
	}
	if n := poolerTransactions(t, ctx, c); n < 600 {
		t.Errorf("pgbouncer's SHOW STATS counts %d transactions on pgoltp, want at least 600", n)
	}
	st := c.Status(ctx, "pgoltp")
	if len(st.Nodes) != 2 || st.Nodes[1].Role != "standby" || st.Nodes[1].State != "streaming" || st.Nodes[1].SyncState != "quorum" {
		t.Fatalf("status nodes %+v, want the primary and standby1 streaming in quorum", st.Nodes)
	}
	if st.Pooler == nil || !st.Pooler.Running {
		t.Fatalf("status pooler %+v, want running", st.Pooler)
	}
	standby := c.Nodes()[0]
	if got := queryText(t, ctx, standby.DSN("postgres"), "SHOW listen_addresses"); got != "127.0.0.1" {
		t.Errorf("standby listen_addresses = %q, want 127.0.0.1", got)
	}
	lsn := queryText(t, ctx, c.DSN("pgoltp"), "SELECT pg_current_wal_lsn()::text")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if queryText(t, ctx, standby.DSN("pgoltp"), "SELECT (pg_last_wal_replay_lsn() >= '"+lsn+"'::pg_lsn)::text") == "true" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("standby did not replay up to %s in a minute", lsn)
		}
	}
	const sum = "SELECT sum(abalance)::text FROM pgbench_accounts"
	if p, s := queryText(t, ctx, c.DSN("pgoltp"), sum), queryText(t, ctx, standby.DSN("pgoltp"), sum); p != s {
		t.Errorf("pgbench_accounts sums to %s on the primary, %s on the standby", p, s)
	}
	// cluster down stops every node and the pooler; destroy removes them.
	if err := c.StopAll(ctx); err != nil {
		t.Fatal(err)
	}
	if c.Running(ctx) || standby.Running(ctx) || c.PoolerRunning() {
		t.Errorf("after StopAll: primary %v, standby %v, pooler %v running", c.Running(ctx), standby.Running(ctx), c.PoolerRunning())
	}
	destroyed = true
	if err := c.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{standby.DataDir, filepath.Join(c.Lab, "pooler")} {
		if _, err := os.Lstat(dir); !os.IsNotExist(err) {
			t.Errorf("%s left after Destroy: %v", dir, err)
		}
	}
}

// wantSampled fails unless the collectors sampled metric for key (above
// zero at least once, if positive).
func wantSampled(t *testing.T, samples *collect.Samples, metric, key string, positive bool) {
	t.Helper()
	seen := false
	for _, p := range samples.Points {
		if p.Metric == metric && p.Key == key {
			seen = true
			if !positive || p.Value > 0 {
				return
			}
		}
	}
	t.Errorf("no %s point for %q (seen %v, want positive %v); warnings %v", metric, key, seen, positive, samples.Warnings)
}

func queryText(t *testing.T, ctx context.Context, dsn, sql string) string {
	t.Helper()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var s string
	if err := conn.QueryRow(ctx, sql).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

// poolerTransactions is total_xact_count of database pgoltp in SHOW STATS
// on pgbouncer's admin console.
func poolerTransactions(t *testing.T, ctx context.Context, c *cluster.Cluster) int {
	t.Helper()
	conn, err := pgconn.Connect(ctx, c.PoolerAdminDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	results, err := conn.Exec(ctx, "SHOW STATS").ReadAll()
	if err != nil || len(results) == 0 {
		t.Fatalf("SHOW STATS: %v", err)
	}
	r := results[0]
	db, xacts := -1, -1
	for i, f := range r.FieldDescriptions {
		switch f.Name {
		case "database":
			db = i
		case "total_xact_count":
			xacts = i
		}
	}
	for _, row := range r.Rows {
		if db >= 0 && xacts >= 0 && string(row[db]) == "pgoltp" {
			var n int
			for _, ch := range row[xacts] {
				n = n*10 + int(ch-'0')
			}
			return n
		}
	}
	t.Fatalf("SHOW STATS has no row for pgoltp")
	return 0
}
