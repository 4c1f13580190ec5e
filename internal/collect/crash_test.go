package collect_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestCollectorSurvivesServerCrash kills the managed server (SIGKILL, as a
// crash) while the collectors sample it: the OS keeps being sampled, the loss
// and the reconnection are events, PostgreSQL sampling resumes after recovery,
// and Stop still takes its after-run snapshots.
func TestCollectorSurvivesServerCrash(t *testing.T) {
	c := pgtest.Cluster(t)
	dsn := pgtest.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE survivor AS SELECT g AS id FROM generate_series(1, 1000) g; CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	sess, err := collect.Start(ctx, dsn, collect.Options{Interval: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if err := c.Kill(); err != nil {
		t.Fatal(err)
	}
	crashed := time.Now()
	time.Sleep(time.Second)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	restarted := time.Now()
	time.Sleep(1500 * time.Millisecond)
	s, err := sess.Stop()
	if err == nil {
		t.Error("Stop should report that sampling lost the server")
	}
	var lost, back bool
	for _, e := range s.Events {
		if e.Kind == "collector" {
			t.Logf("%s %s", e.At.Format("15:04:05.000"), e.Detail)
			lost = lost || e.At.After(crashed.Add(-time.Second))
			back = back || (lost && e.Detail == "reconnected to the server")
		}
	}
	if !lost || !back {
		t.Errorf("events do not show the loss and the reconnection: %+v", s.Events)
	}
	var osDuring, pgAfter bool
	for _, p := range s.Points {
		if p.Metric == "os.cpu.user_pct" && p.At.After(crashed) && p.At.Before(restarted) {
			osDuring = true
		}
		if p.Metric == "pg.sessions.total" && p.At.After(restarted) {
			pgAfter = true
		}
	}
	if !osDuring || !pgAfter {
		t.Errorf("OS sampled while the server was down: %v; PostgreSQL sampled after restart: %v", osDuring, pgAfter)
	}
	if len(s.Tables) == 0 {
		t.Errorf("no after-run table snapshot; warnings: %v", s.Warnings)
	}
}
