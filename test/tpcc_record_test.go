package e2e_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestTpccRunRecordsAndChecks: a run ends with the consistency check and is
// stored, with the check's outcome, for 'pgoltp report'.
func TestTpccRunRecordsAndChecks(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	lab := labDir(t)
	if r := runPgoltp(t, 5*time.Minute, "--dsn", dsn, "tpcc", "load", "--warehouses", "1"); r.code != 0 {
		t.Fatalf("load: exit %d: %s", r.code, r.stderr)
	}
	r := runPgoltp(t, 5*time.Minute, "--dsn", dsn, "--lab", lab, "--json", "tpcc", "run", "--conns", "2", "--duration", "3s", "--progress", "0")
	if r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	var out struct {
		TpmC  float64 `json:"tpmc"`
		RunID string  `json:"run_id"`
		Check *struct {
			Passed  bool `json:"passed"`
			Results []struct {
				Name, Status string
			} `json:"results"`
		} `json:"check"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("run --json: %v\n%s", err, r.stdout)
	}
	if out.TpmC <= 0 || out.RunID == "" || out.Check == nil || !out.Check.Passed || len(out.Check.Results) < 10 {
		t.Fatalf("want tpmC, a stored run id and a passed check, got %+v", out)
	}
	r = runPgoltp(t, time.Minute, "--lab", lab, "report", out.RunID, "--format", "json")
	if r.code != 0 || !strings.Contains(r.stdout, "consistency check (quick)") || !strings.Contains(r.stdout, "tpmC") ||
		!strings.Contains(r.stdout, "response times (clause 5.2.5.3") || !strings.Contains(r.stdout, "input audits (TPC-C 5.11 clauses)") {
		t.Errorf("stored run lacks the check, tpmC, the response time checks or the audits: exit %d %s", r.code, r.stderr)
	}
	var stored struct {
		Headline []struct {
			Name  string  `json:"name"`
			Value float64 `json:"value"`
		} `json:"headline"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &stored); err != nil {
		t.Fatalf("report --format json: %v", err)
	}
	found := false
	for _, f := range stored.Headline {
		if f.Name == "tpmC" {
			found = true
			if f.Value != math.Floor(out.TpmC) {
				t.Errorf("stored tpmC %v, want %v truncated (clause 5.4.4)", f.Value, out.TpmC)
			}
		}
	}
	if !found {
		t.Errorf("no tpmC in the stored headline: %s", r.stdout[:min(len(r.stdout), 500)])
	}

	// Bad input fails before anything runs or is stored, also when it only
	// shows against the load (11 spec-mode terminals on one warehouse).
	r = runPgoltp(t, time.Minute, "--dsn", dsn, "--lab", lab, "tpcc", "run", "--check", "sometimes")
	assertOneLineProblem(t, r, "--check")
	r = runPgoltp(t, time.Minute, "--dsn", dsn, "--lab", lab, "tpcc", "run", "--mode", "spec", "--terminals", "11")
	assertOneLineProblem(t, r, "--terminals 11", "2.8.1.1", "--allow-noncompliant")
	r = runPgoltp(t, time.Minute, "--dsn", dsn, "--lab", lab, "tpcc", "run", "--warehouses", "2")
	assertOneLineProblem(t, r, "--warehouses 2")
	r = runPgoltp(t, time.Minute, "--lab", lab, "runs", "--format", "json")
	if n := strings.Count(r.stdout, `"id"`); n != 1 {
		t.Errorf("want exactly one stored run, got %d:\n%s", n, r.stdout)
	}

	// A mix below the minimums of clause 5.2.3 runs in no-wait mode, marked
	// non-compliant in the JSON and in the stored run the report shows.
	r = runPgoltp(t, 5*time.Minute, "--dsn", dsn, "--lab", lab, "--json", "tpcc", "run", "--weights", "50,40,4,3,3",
		"--duration", "2s", "--progress", "0", "--check", "none")
	var nc struct {
		RunID        string   `json:"run_id"`
		MixCompliant bool     `json:"mix_compliant"`
		NonCompliant []string `json:"non_compliant"`
		Compliance   string   `json:"compliance"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &nc); err != nil || r.code != 0 {
		t.Fatalf("low-mix run: exit %d, %v: %s", r.code, err, r.stderr)
	}
	lowMix := false
	for _, d := range nc.NonCompliant {
		lowMix = lowMix || strings.Contains(d, "5.2.3")
	}
	if nc.MixCompliant || !lowMix || nc.Compliance != "indicative" {
		t.Errorf("low-mix run JSON: mix_compliant %v, compliance %q, non_compliant %q", nc.MixCompliant, nc.Compliance, nc.NonCompliant)
	}
	r = runPgoltp(t, time.Minute, "--lab", lab, "report", nc.RunID, "--format", "json")
	if r.code != 0 || !strings.Contains(r.stdout, "INDICATIVE, departs from TPC-C 5.11: mix 50,40,4,3,3") {
		t.Errorf("stored low-mix run does not say it is non-compliant: exit %d %s", r.code, r.stderr)
	}
}
