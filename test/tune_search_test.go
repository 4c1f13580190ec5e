package e2e_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// tuneResult is the part of `pgoltp tune --json` the test checks.
type tuneResult struct {
	ID     string `json:"id"`
	Trials []struct {
		N      int    `json:"n"`
		Failed bool   `json:"failed"`
		Error  string `json:"error"`
		RunID  string `json:"run_id"`
	} `json:"trials"`
	Confirmed bool `json:"confirmed"`
	VsStart   struct {
		Valid   bool    `json:"valid"`
		Percent float64 `json:"percent"`
		Low     float64 `json:"low_pct"`
		High    float64 `json:"high_pct"`
	} `json:"gain_over_start"`
	Best     map[string]string `json:"best"`
	Kept     map[string]string `json:"kept"`
	Unsafe   []string          `json:"unsafe"`
	Restored bool              `json:"restored"`
}

// TestTuneSearch: a tiny search on the lab's managed cluster (TPC-B scale 1,
// 3 trials of 3 s, the second forced to huge_pages=on, which this host
// cannot start with) stores every trial, survives the failing one, reports
// the best with an interval, keeps unsafe settings out, and leaves the
// server's settings as they were; --resume continues the same search.
func TestTuneSearch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a search of several minutes")
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil && !strings.Contains(string(b), "HugePages_Total:       0") {
		t.Skip("this host has huge pages reserved: huge_pages=on would start")
	}
	lab := labDir(t)
	if r := runPgoltp(t, 5*time.Minute, "cluster", "up", "--lab", lab); r.code != 0 {
		t.Fatalf("cluster up: %d %s", r.code, r.stderr)
	}
	t.Cleanup(func() { runPgoltp(t, time.Minute, "cluster", "destroy", "--lab", lab) })
	readSettings := func() string {
		r := runPgoltp(t, time.Minute, "cluster", "psql", "--lab", lab, "--", "-XAtc",
			"SELECT string_agg(name || '=' || setting || CASE WHEN pending_restart THEN ' (pending)' ELSE '' END, E'\\n' ORDER BY name) FROM pg_settings")
		if r.code != 0 || !strings.Contains(r.stdout, "shared_buffers=") {
			t.Fatalf("reading pg_settings: %d %s %s", r.code, r.stdout, r.stderr)
		}
		return r.stdout
	}
	before := readSettings()

	args := []string{"tune", "--lab", lab, "--json", "--workload", "tpcb", "--scale", "1", "--clients", "2",
		"--trial", "3s", "--prewarm", "1s", "--confirm", "1", "--ablation", "1", "--seed", "4"}
	r := runPgoltp(t, 15*time.Minute, append(args, "--budget", "3", "--test-inject", "2:huge_pages=on")...)
	if r.code != 0 {
		t.Fatalf("tune: exit %d\nstderr: %s\nstdout: %s", r.code, r.stderr, r.stdout)
	}
	var res tuneResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("tune --json: %v\n%s", err, r.stdout)
	}
	if len(res.Trials) != 3 {
		t.Fatalf("%d trials, want 3", len(res.Trials))
	}
	if !res.Trials[1].Failed || !strings.Contains(res.Trials[1].Error, "did not start") {
		t.Errorf("trial 2 (huge_pages=on) did not fail as a start failure: %+v", res.Trials[1])
	}
	if res.Trials[2].Failed && res.Trials[0].Failed {
		t.Errorf("every trial failed: the search did not go on after the start failure")
	}
	runs := runPgoltp(t, time.Minute, "runs", "--lab", lab)
	for _, tr := range res.Trials {
		if tr.RunID == "" || !strings.Contains(runs.stdout, tr.RunID) {
			t.Errorf("trial %d is not a stored run (id %q)\n%s", tr.N, tr.RunID, runs.stdout)
		}
	}
	if !res.Confirmed || !res.VsStart.Valid || !(res.VsStart.Low <= res.VsStart.Percent && res.VsStart.Percent <= res.VsStart.High) {
		t.Errorf("best not reported with an interval: %+v", res.VsStart)
	}
	if len(res.Best) == 0 {
		t.Error("no best configuration")
	}
	if len(res.Unsafe) > 0 || res.Kept["synchronous_commit"] == "off" || res.Best["synchronous_commit"] == "off" {
		t.Errorf("unsafe settings in the result without --allow-unsafe: %v", res.Unsafe)
	}
	if !res.Restored {
		t.Error("result does not say the settings were restored")
	}
	if after := readSettings(); after != before {
		t.Errorf("settings after tune differ from before:\n%s", diffLines(before, after))
	}

	// --resume continues the stored search up to the new budget.
	r = runPgoltp(t, 15*time.Minute, append(args, "--resume="+res.ID, "--budget", "4")...)
	if r.code != 0 {
		t.Fatalf("tune --resume: exit %d\n%s", r.code, r.stderr)
	}
	var resumed tuneResult
	if err := json.Unmarshal([]byte(r.stdout), &resumed); err != nil {
		t.Fatal(err)
	}
	if resumed.ID != res.ID || len(resumed.Trials) != 4 || resumed.Trials[0].RunID != res.Trials[0].RunID {
		t.Errorf("resume did not continue search %s: id %s, %d trials", res.ID, resumed.ID, len(resumed.Trials))
	}
	if after := readSettings(); after != before {
		t.Errorf("settings after the resumed tune differ from before:\n%s", diffLines(before, after))
	}
}

func diffLines(a, b string) string {
	in := map[string]bool{}
	for _, l := range strings.Split(a, "\n") {
		in[l] = true
	}
	var out []string
	for _, l := range strings.Split(b, "\n") {
		if !in[l] {
			out = append(out, "now: "+l)
		}
	}
	return strings.Join(out, "\n")
}
