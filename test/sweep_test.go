package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/store"
)

// A sweep loads once, runs every number of clients once per repetition in
// blocks, stores each point as a run tagged with the sweep, and reports the
// curve with its intervals and what it says of the knee.
func TestSweep(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	lab := labDir(t)
	r := runPgoltp(t, 5*time.Minute, "--dsn", dsn, "--lab", lab, "--json", "sweep", "--workload", "tpcb", "--scale", "1",
		"--clients", "1,3", "--repetitions", "2", "--duration", "1s", "--seed", "11")
	if r.code != 0 {
		t.Fatalf("sweep: exit %d: %s", r.code, r.stderr)
	}
	var rep struct {
		ID      string
		Results []struct {
			Value, Repetition int
			RunID             string `json:"run_id"`
			TPS               float64
			Error             string
		}
		Levels []struct {
			Value, N int
			TPS      float64
		}
		KneeNote string `json:"knee_note"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, r.stdout)
	}
	if len(rep.Results) != 4 || len(rep.Levels) != 2 || rep.Levels[0].N != 2 || rep.Levels[1].N != 2 || rep.KneeNote == "" {
		t.Fatalf("report %+v", rep)
	}
	for i, res := range rep.Results {
		if res.Repetition != i/2+1 || res.Error != "" || res.TPS <= 0 || res.RunID == "" {
			t.Errorf("point %d: %+v (want repetition %d, measured and stored)", i, res, i/2+1)
		}
	}
	if rep.Results[0].Value == rep.Results[1].Value {
		t.Errorf("the first block ran %d twice", rep.Results[0].Value)
	}
	st, err := store.Open(context.Background(), lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	run, err := st.Load(context.Background(), rep.Results[3].RunID)
	if err != nil {
		t.Fatal(err)
	}
	tagged := false
	for _, p := range run.Params {
		tagged = tagged || p.Name == "sweep" && p.Value == rep.ID
	}
	if !tagged {
		t.Errorf("the stored run's parameters %v do not name the sweep %s", run.Params, rep.ID)
	}
	html := filepath.Join(t.TempDir(), "sweep.html")
	if r := runPgoltp(t, time.Minute, "--lab", lab, "report", rep.ID, "-o", html); r.code != 0 {
		t.Fatalf("report %s: %s", rep.ID, r.stderr)
	}
	if b, _ := os.ReadFile(html); !strings.Contains(string(b), "Throughput against clients") || !strings.Contains(string(b), "<svg") {
		t.Errorf("the sweep's report has no curve")
	}
}

func TestSweepBadInput(t *testing.T) {
	t.Parallel()
	dsn := "postgres://nobody@127.0.0.1:1/none"
	for _, args := range [][]string{
		{"--clients", "4"},
		{"--clients", "1,1"},
		{"--clients", "0,2"},
		{"--clients", "1,2", "--workload", "nosuch"},
		{"--clients", "1,2", "--repetitions", "0"},
		{"--clients", "1,2", "--duration", "10ms"},
		{"--clients", "1,2", "--rates", "100,200"},
		{"--clients", "2", "--rates", "100"},
		{"--clients", "2", "--rates", "100,200", "--workload", "ledger"},
	} {
		r := runPgoltp(t, time.Minute, append([]string{"--dsn", dsn, "sweep"}, args...)...)
		assertOneLineProblem(t, r)
		if strings.Contains(r.stderr, "reach") {
			t.Errorf("%v was not refused before connecting: %s", args, r.stderr)
		}
	}
}

// A step load: one run whose offered rate follows the phases of a file,
// summed by phase.
func TestSweepPhases(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	file := filepath.Join(t.TempDir(), "phases.txt")
	if err := os.WriteFile(file, []byte("# step load\n3s 40\n2s 0\n3s 120\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runPgoltp(t, 5*time.Minute, "--dsn", dsn, "--lab", labDir(t), "--json", "sweep", "--workload", "tpcb", "--scale", "1",
		"--clients", "2", "--phases", file)
	if r.code != 0 {
		t.Fatalf("sweep --phases: exit %d: %s", r.code, r.stderr)
	}
	var rep struct {
		RunID  string `json:"run_id"`
		Phases []struct {
			Offered float64 `json:"offered_tps"`
			TPS     float64
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || len(rep.Phases) != 3 || rep.RunID == "" {
		t.Fatalf("--json: %v\n%s", err, r.stdout)
	}
	p := rep.Phases
	if p[0].Offered != 40 || p[0].TPS < 15 || p[0].TPS > 70 || p[1].TPS > 5 || p[2].TPS < 60 || p[2].TPS > 180 {
		t.Errorf("phases %+v: want about 40, 0 and 120 tps", p)
	}
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "--dsn", dsn, "sweep", "--clients", "1,2", "--phases", file), "--phases")
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "--dsn", dsn, "sweep", "--workload", "ledger", "--clients", "2", "--phases", file), "rate")
}
