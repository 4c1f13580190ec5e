package e2e_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestTpccRunRecordsAndChecks: a run ends with the consistency check and is
// stored, with the check's outcome, for 'pgoltp report'.
func TestTpccRunRecordsAndChecks(t *testing.T) {
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
	if r.code != 0 || !strings.Contains(r.stdout, "consistency check (quick)") || !strings.Contains(r.stdout, "tpmC") {
		t.Errorf("stored run lacks the check or tpmC: exit %d %s", r.code, r.stderr)
	}

	// Bad input fails before anything runs or is stored.
	r = runPgoltp(t, time.Minute, "--dsn", dsn, "--lab", lab, "tpcc", "run", "--check", "sometimes")
	assertOneLineProblem(t, r, "--check")
	r = runPgoltp(t, time.Minute, "--lab", lab, "runs", "--format", "json")
	if n := strings.Count(r.stdout, `"id"`); n != 1 {
		t.Errorf("want exactly one stored run, got %d:\n%s", n, r.stdout)
	}
}
