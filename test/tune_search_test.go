package e2e_test

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
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
	Ablation []struct {
		Name string `json:"name"`
	} `json:"ablation"`
	Layout *struct {
		Tables     []string `json:"tables"`
		Candidates []struct {
			N      int    `json:"n"`
			RunID  string `json:"run_id"`
			Failed bool   `json:"failed"`
		} `json:"candidates"`
		Restored bool `json:"restored"`
	} `json:"layout"`
}

// TestTuneSearch: a tiny search on the lab's managed cluster (TPC-B scale 1,
// 3 trials of 1 s, the second forced to huge_pages=on, which this host
// cannot start with) stores every trial, survives the failing one, reports
// the best with an interval, keeps unsafe settings out, and leaves the
// server's settings as they were; its report comes from the results store
// alone; --resume continues the same search, here with the layout phase,
// which stores its runs and leaves the tables' fillfactor as it was.
func TestTuneSearch(t *testing.T) {
	t.Parallel()
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
		"--trial", "1s", "--prewarm", "1s", "--confirm", "1", "--ablation", "1", "--max-pairs", "2", "--seed", "4"}
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
	if left, _ := filepath.Glob(filepath.Join(lab, "restore", "*.json")); len(left) != 0 {
		t.Errorf("the restore record stays after a verified restore: %v", left)
	}

	checkSearchReport(t, lab, res)

	// --resume continues the stored search up to the new budget, then
	// runs the layout phase.
	readFillfactor := func() string {
		r := runPgoltp(t, time.Minute, "cluster", "psql", "--lab", lab, "--", "-XAtq", "-c", `\c pgoltp_tune`, "-c",
			"SELECT string_agg(relname || ':' || coalesce(array_to_string(reloptions, ','), ''), ' ' ORDER BY relname) FROM pg_class WHERE relname LIKE 'pgbench\\_%' AND relkind = 'r'")
		if r.code != 0 || !strings.Contains(r.stdout, "pgbench_accounts:") {
			t.Fatalf("reading the tables' fillfactor: %d %s %s", r.code, r.stdout, r.stderr)
		}
		return strings.TrimSpace(r.stdout)
	}
	ffBefore := readFillfactor()
	r = runPgoltp(t, 15*time.Minute, append(args, "--resume="+res.ID, "--budget", "4", "--layout")...)
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
	if l := resumed.Layout; l == nil || len(l.Candidates) == 0 || len(l.Tables) != 3 || !l.Restored {
		t.Errorf("the layout phase did not run over the three TPC-B tables and put them back: %+v\n%s", l, r.stderr)
	} else {
		runs := runPgoltp(t, time.Minute, "runs", "--lab", lab)
		for _, c := range l.Candidates {
			if c.RunID == "" || !strings.Contains(runs.stdout, c.RunID) {
				t.Errorf("layout candidate %d is not a stored run (id %q)", c.N, c.RunID)
			}
		}
	}
	if after := readFillfactor(); after != ffBefore {
		t.Errorf("fillfactor after the layout phase: %s, before: %s", after, ffBefore)
	}
	checkSearchReport(t, lab, resumed)
}

// checkSearchReport: 'pgoltp report tune:ID' shows every trial, the best,
// the ablation rows and the layout phase, from the results store alone
// (the lab's search state moved away), in HTML and JSON.
func checkSearchReport(t *testing.T, lab string, res tuneResult) {
	t.Helper()
	state, moved := filepath.Join(lab, "tune"), filepath.Join(lab, "tune.moved")
	if err := os.Rename(state, moved); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := os.Rename(moved, state); err != nil {
			t.Fatal(err)
		}
	}()
	page := filepath.Join(t.TempDir(), "search.html")
	r := runPgoltp(t, time.Minute, "report", "--lab", lab, "tune:"+res.ID, "-o", page)
	if r.code != 0 {
		t.Fatalf("report tune:%s: exit %d\n%s", res.ID, r.code, r.stderr)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := html.UnescapeString(string(b)) // html/template writes + as &#43;
	for _, tr := range res.Trials {
		if !strings.Contains(html, fmt.Sprintf(`id="trial-%d"`, tr.N)) || !strings.Contains(html, tr.RunID) {
			t.Errorf("the search page lacks trial %d (run %s)", tr.N, tr.RunID)
		}
	}
	if res.Confirmed && (!strings.Contains(html, `id="confirmation-table"`) || !strings.Contains(html, fmt.Sprintf("%+.1f%%", res.VsStart.Percent))) {
		t.Errorf("the search page lacks the confirmation (%+.1f%%)", res.VsStart.Percent)
	}
	if len(res.Best) > 0 && !strings.Contains(html, ` best"`) {
		t.Error("the search page marks no trial as the best")
	}
	for _, c := range res.Ablation {
		if !strings.Contains(html, `id="ablation-`+c.Name+`"`) {
			t.Errorf("the search page lacks the ablation row of %s", c.Name)
		}
	}
	if len(res.Ablation) == 0 {
		t.Log("no ablation: no candidate beat the start when re-run")
	}
	if res.Layout != nil && (!strings.Contains(html, `id="layout-table"`) || !strings.Contains(html, `id="layout-result"`)) {
		t.Error("the search page lacks the layout phase")
	}
	// The same from "tune" (the latest search) as JSON: every trial's run
	// is linked to the search as a trial.
	r = runPgoltp(t, time.Minute, "report", "--lab", lab, "tune", "--format", "json")
	if r.code != 0 {
		t.Fatalf("report tune --format json: exit %d\n%s", r.code, r.stderr)
	}
	var view struct {
		ID     string `json:"id"`
		Trials []struct {
			RunID string `json:"run_id"`
		} `json:"trials"`
		Runs []struct {
			RunID string `json:"run_id"`
			Role  string `json:"role"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &view); err != nil {
		t.Fatalf("report tune --format json: %v\n%s", err, r.stdout)
	}
	role := map[string]string{}
	for _, l := range view.Runs {
		role[l.RunID] = l.Role
	}
	if view.ID != res.ID || len(view.Trials) != len(res.Trials) {
		t.Errorf("report tune is search %s with %d trials, want %s with %d", view.ID, len(view.Trials), res.ID, len(res.Trials))
	}
	for _, tr := range res.Trials {
		if role[tr.RunID] != "trial" {
			t.Errorf("trial run %s is linked as %q", tr.RunID, role[tr.RunID])
		}
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
