package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/report"
)

// TestStandbyCollectorsAndPoolerStep (issue 31): on a lab with one standby
// and pgbouncer, a recorded tpcb run stores what the collectors read on the
// standby itself (its WAL receiver streaming, its replay, its recovery
// conflicts) and the primary's WAL sender, and the HTML report charts them;
// an experiment plan's via: pooler step is measured against the direct
// baseline to a verdict, and refused, one line naming the key, on a lab
// without a pooler or with --dsn.
func TestStandbyCollectorsAndPoolerStep(t *testing.T) {
	t.Parallel()
	lab, pg, ok := tpcbLab(t)
	plan := filepath.Join(t.TempDir(), "pooler.yaml")
	// ledger: TPC-B as experiments run it prepares named statements, which
	// pgbouncer before 1.21 does not keep (refused below when so).
	text := "workload: {clients: 2}\nduration: 2s\nrepetitions: 2\nsteps:\n  - name: pgbouncer\n    via: pooler\n"
	if err := os.WriteFile(plan, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	assertOneLineProblem(t, pg(time.Minute, "experiment", plan), "steps.via: pooler", "no pooler", "--pooler pgbouncer")
	c, err := cluster.Open(lab)
	if err != nil {
		t.Fatal(err)
	}
	assertOneLineProblem(t, pg(time.Minute, "--dsn", c.DSN("pgoltp"), "experiment", plan), "steps.via: pooler", "--dsn")

	ok(pg(5*time.Minute, "cluster", "up", "--standbys", "1", "--pooler", "pgbouncer"), "cluster up --standbys 1 --pooler pgbouncer")
	if c, err = cluster.Open(lab); err != nil {
		t.Fatal(err)
	}
	// With --dsn, the standby --read-dsn names is the one pgoltp reads.
	ok(pg(5*time.Minute, "--dsn", c.DSN("pgoltp"), "tpcb", "run", "-S", "-c", "2", "-T", "3", "--read-dsn", c.Nodes()[0].DSN("pgoltp")), "tpcb run --dsn --read-dsn")
	if seen := standbyPoints(t, pg, "read-dsn"); seen["standby.receiver_streaming"] != 1 {
		t.Errorf("--read-dsn: standby points %v, want its receiver streaming", seen)
	}
	ok(pg(5*time.Minute, "tpcb", "run", "-c", "2", "-T", "4"), "tpcb run")
	seen, e := standbyPoints(t, pg, "standby1"), lastRun(t, pg)
	for _, m := range []string{"standby.receiver_streaming", "pg.replication.streaming"} {
		if seen[m] != 1 {
			t.Errorf("%s of standby1: %v, want 1 (streaming); points %v", m, seen[m], seen)
		}
	}
	for _, m := range []string{"standby.conflicts.snapshot_per_s", "standby.conflicts.lock_per_s", "standby.replay_delay_s", "standby.replay_gap_mb", "standby.received_mb_per_s"} {
		if _, found := seen[m]; !found {
			t.Errorf("no %s of standby1 stored; points %v", m, seen)
		}
	}
	var events []string
	for _, ev := range e.Collected.Events {
		events = append(events, ev.Detail)
	}
	if all := strings.Join(events, "\n"); !strings.Contains(all, "standby1: WAL receiver streaming") || !strings.Contains(all, "standby1: WAL sender streaming, async") {
		t.Errorf("events %q, want standby1's receiver and sender streaming", events)
	}
	html := ok(pg(time.Minute, "report", "last", "--format", "html", "-o", "-"), "report last --format html").stdout
	for _, title := range []string{"WAL receivers (each standby", "Recovery conflicts on standbys", "WAL senders (pg_stat_replication", "Standby replay delay"} {
		if !strings.Contains(html, title) {
			t.Errorf("the HTML report has no chart %q", title)
		}
	}

	if !c.Pooler.KeepsPreparedStatements() {
		tpcbPlan := filepath.Join(t.TempDir(), "tpcb.yaml")
		if err := os.WriteFile(tpcbPlan, []byte(strings.Replace(text, "{clients: 2}", "{kind: tpcb, clients: 2}", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		assertOneLineProblem(t, pg(time.Minute, "experiment", tpcbPlan), "steps.via: pooler", "workload.kind tpcb", "prepared statements")
	}
	r := ok(pg(10*time.Minute, "--json", "experiment", plan), "experiment with a via: pooler step")
	var rep struct {
		Steps []struct {
			Verdict  string `json:"verdict"`
			Settings []struct{ Name, Value, Risk string }
			Runs     []json.RawMessage `json:"runs"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("experiment --json: %v: %.500s", err, r.stdout)
	}
	if len(rep.Steps) != 1 || rep.Steps[0].Verdict == "" || strings.HasPrefix(rep.Steps[0].Verdict, "invalid") || len(rep.Steps[0].Runs) != 5 {
		t.Fatalf("the pooler step: %.1500s; want a verdict from 2 pairs", r.stdout)
	}
	if s := rep.Steps[0].Settings; len(s) != 1 || s[0].Name != "via" || s[0].Value != "pooler" || s[0].Risk != "data path" {
		t.Errorf("the step's settings %+v, want via pooler, labelled a data path", s)
	}
}

// lastRun is the JSON export of the lab's last stored run.
func lastRun(t *testing.T, pg func(time.Duration, ...string) result) report.Export {
	t.Helper()
	r := pg(time.Minute, "report", "last", "--format", "json")
	var e report.Export
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil || e.Collected == nil {
		t.Fatalf("report last --format json: %v (exit %d, %s)", err, r.code, r.stderr)
	}
	return e
}

// standbyPoints is the largest value of each metric the last stored run
// sampled of the standby named key.
func standbyPoints(t *testing.T, pg func(time.Duration, ...string) result, key string) map[string]float64 {
	t.Helper()
	seen := map[string]float64{}
	for _, p := range lastRun(t, pg).Collected.Points {
		if p.Key == key {
			seen[p.Metric] = max(seen[p.Metric], p.Value)
		}
	}
	return seen
}
