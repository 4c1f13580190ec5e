package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// writePlan writes a plan file and returns its path.
func writePlan(t *testing.T, plan string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(path, []byte(plan), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFailoverPlanBadKey: a failover plan with a bad key or value is one
// line naming it, exit 2, before any cluster is touched (issue 31).
func TestFailoverPlanBadKey(t *testing.T) {
	for plan, want := range map[string]string{
		"duration: 3s\nfailover: {sync: [on], kil: [network]}\n": "kil",
		"duration: 3s\nfailover: {sync: [maybe]}\n":              "sync \"maybe\"",
	} {
		err := execute(t, "experiment", "--failover=false", "--crash=false", writePlan(t, plan))
		wantBadInput(t, err, []string{"plan.yaml", want}, "\n")
	}
}

// TestFailoverPlanRuns runs a two-level failover plan (synchronous and
// asynchronous replication, the primary cut off), each audit on a fresh
// cluster with one standby made from the lab's binaries, and reads its one
// table: no acknowledged commit lost with synchronous replication, the
// asynchronous loss counted; the lab's own cluster is left as it was and
// the fresh ones are gone.
func TestFailoverPlanRuns(t *testing.T) {
	lab := pgtest.LabDir(t)
	t.Cleanup(func() {
		global.json = false
		if c, err := cluster.Open(lab); err == nil {
			c.Destroy(context.Background())
		}
	})
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		rootCmd.SetOut(&out)
		rootCmd.SetErr(&out)
		rootCmd.SetArgs(append([]string{"--lab", lab}, args...))
		err := rootCmd.ExecuteContext(context.Background())
		return out.String(), err
	}
	if out, err := run("cluster", "up", "--standbys", "0", "--sync", "", "--pooler", ""); err != nil {
		t.Fatalf("cluster up: %v: %s", err, out)
	}
	plan := writePlan(t, "workload: {clients: 2}\nduration: 2s\nfailover: {sync: [on, off], kill: [network]}\n")
	out, err := run("--json", "experiment", "--failover=false", "--crash=false", plan)
	if err != nil {
		t.Fatalf("failover plan: %v: %s", err, out)
	}
	var table struct {
		Audits []struct {
			Synchronous        bool
			Kill               string
			Acknowledged, Lost int64
			WithoutPrimary     int64   `json:"without_primary_ns"`
			RateBefore         float64 `json:"commits_per_s_before"`
			RateAfter          float64 `json:"commits_per_s_after"`
			Rebuilt            bool
		}
	}
	if err := json.Unmarshal([]byte(out), &table); err != nil {
		t.Fatalf("--json: %v: %s", err, out)
	}
	if len(table.Audits) != 2 {
		t.Fatalf("%d audits, want 2: %s", len(table.Audits), out)
	}
	for i, a := range table.Audits {
		if a.Synchronous != (i == 0) || a.Kill != "network" || a.Acknowledged < 10 || a.WithoutPrimary <= 0 || a.RateBefore <= 0 || a.RateAfter <= 0 || !a.Rebuilt {
			t.Errorf("audit %d: %+v", i, a)
		}
	}
	if c, err := cluster.Open(lab); err != nil || c.StandbyCount() != 0 || !c.Running(context.Background()) {
		t.Errorf("the lab's cluster after the plan: %v, want it running, without standbys, as it was", err)
	}
	if _, err := os.Lstat(filepath.Join(lab, "failover")); !os.IsNotExist(err) {
		t.Errorf("the audits' clusters are left in %s: %v", filepath.Join(lab, "failover"), err)
	}
	if table.Audits[0].Lost != 0 || table.Audits[1].Lost == 0 {
		t.Errorf("lost %d with synchronous replication (want 0), %d with asynchronous (want some: the cut-off primary acknowledged them)", table.Audits[0].Lost, table.Audits[1].Lost)
	}
}
