package collect_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/pgtest/pgbench"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// TestCollectorsAroundPgbench samples a real pgbench run and checks that every
// source produced what the report needs.
func TestCollectorsAroundPgbench(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := pgbench.Run(ctx, dsn, pgbench.Options{Seconds: 5, Clients: 4, Collector: true})
	if err != nil {
		t.Fatal(err)
	}
	s := run.Samples
	if s == nil {
		t.Fatal("no samples")
	}
	for _, w := range s.Warnings {
		// Every per-tick query must work on the version under test.
		if strings.HasPrefix(w, "not sampling") || strings.HasPrefix(w, "sampling stopped") {
			t.Errorf("warning: %s", w)
		} else {
			t.Logf("warning: %s", w)
		}
	}
	max := map[string]float64{}
	seen := map[string]bool{}
	for _, p := range s.Points {
		seen[p.Metric] = true
		if p.Value > max[p.Metric] {
			max[p.Metric] = p.Value
		}
	}
	positive := []string{"pg.xact.commits_per_s", "pg.blks.hit_per_s", "pg.wal.mb_per_s", "pg.tuples.written_per_s", "pg.sessions.total", "os.context_switches_per_s"}
	present := []string{"os.cpu.user_pct", "os.cpu.iowait_pct", "os.run_queue", "os.mem.dirty_mb", "pg.blks.hit_ratio_pct", "pg.blks.read_per_xact", "pg.table.dead_tuples", "pg.buffers.checkpointer_per_s"}
	for _, m := range positive {
		if max[m] <= 0 {
			t.Errorf("%s never above zero (max %v)", m, max[m])
		}
	}
	for _, m := range present {
		if !seen[m] {
			t.Errorf("metric %s never sampled", m)
		}
	}
	// 5 ticks on an idle machine; a tick that takes longer than the interval
	// on a busy 2-core one drops the next, so 3 is the bound.
	if s.Cost.Ticks < 3 {
		t.Errorf("only %d ticks in a 5 s run at 1 s", s.Cost.Ticks)
	}
	t.Logf("cost: %d ticks, tick CPU %v, backend CPU %v (local %v), snapshots %v, %.3f%% of a core",
		s.Cost.Ticks, s.Cost.TickCPU, s.Cost.BackendCPU, s.Cost.BackendLocal, s.Cost.SnapshotCPU, s.Cost.PercentOfCore())
	if s.Cost.TickCPU <= 0 {
		t.Error("collector CPU not measured")
	}

	var updates bool
	for _, st := range s.Statements {
		if strings.Contains(st.Query, "UPDATE pgbench_accounts") && st.Calls > 0 {
			updates = true
		}
		if strings.Contains(st.Query, "pg_stat_") {
			t.Errorf("collector's own query among top statements: %s", st.Query)
		}
	}
	if !updates {
		t.Errorf("UPDATE pgbench_accounts not among top statements: %+v", s.Statements)
	}
	var accounts *collect.Table
	for i := range s.Tables {
		if s.Tables[i].Name == "public.pgbench_accounts" {
			accounts = &s.Tables[i]
		}
	}
	if accounts == nil || accounts.Updates == 0 || accounts.TableAfter < accounts.TableBefore {
		t.Errorf("pgbench_accounts growth/churn not seen: %+v", accounts)
	}
	var active int64
	for _, w := range s.Waits {
		active += w.Samples
	}
	if active == 0 {
		t.Error("no active backends sampled in pg_stat_activity")
	}
	if len(s.Settings) < 200 {
		t.Errorf("pg_settings snapshot has %d rows", len(s.Settings))
	}
	facts := map[string]string{}
	for _, f := range s.Facts {
		facts[f.Scope+"."+f.Name] = f.Value
	}
	for _, k := range []string{"server.version", "os.kernel", "os.cpus", "os.memory", "os.vm.swappiness", "os.transparent_hugepage"} {
		if facts[k] == "" {
			t.Errorf("fact %s missing", k)
		}
	}
}

// TestSettingChanged checks which settings the report lists as changed from defaults.
func TestSettingChanged(t *testing.T) {
	for _, tc := range []struct {
		s    collect.Setting
		want bool
	}{
		{collect.Setting{Name: "fsync", Setting: "off", BootVal: "on", Source: "configuration file"}, true},
		{collect.Setting{Name: "shared_buffers", Setting: "16384", BootVal: "16384", Source: "configuration file"}, false},
		{collect.Setting{Name: "application_name", Setting: "x", BootVal: "", Source: "client"}, false},
		{collect.Setting{Name: "work_mem", Setting: "4096", BootVal: "4096", Source: "default"}, false},
	} {
		if got := tc.s.Changed(); got != tc.want {
			t.Errorf("%s=%s source %s: Changed()=%v, want %v", tc.s.Name, tc.s.Setting, tc.s.Source, got, tc.want)
		}
	}
}

// Checkpoints forced with CHECKPOINT are requested ones (the server counts
// them in checkpoints_req): the events name that cause, whichever tick the
// count and pg_control's new checkpoint time land on.
func TestCheckpointEventsNameTheirCause(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sess, err := collect.Start(ctx, dsn, collect.Options{Interval: 200 * time.Millisecond, NoBloat: true, GrowthEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	time.Sleep(500 * time.Millisecond)
	for range 3 {
		if _, err := conn.Exec(ctx, "CREATE TABLE IF NOT EXISTS ckpt (x int); INSERT INTO ckpt SELECT generate_series(1, 1000); CHECKPOINT"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
	}
	s, err := sess.Stop()
	if err != nil {
		t.Fatal(err)
	}
	causes := map[string]int{}
	for _, e := range s.Events {
		if e.Kind == "checkpoint" {
			cause, _, _ := strings.Cut(e.Detail, " ")
			causes[cause]++
		}
	}
	if causes["requested"] < 3 || causes["unattributed"] > 0 {
		t.Errorf("checkpoint events by cause %v, want at least 3 requested and none unattributed", causes)
	}
}
