package e2e_test

import (
	"encoding/json"
	"testing"
	"time"
)

// TestTpccRunThroughPooler runs TPC-C through the lab's pgbouncer (transaction
// pooling, Debian's 1.18: no named prepared statement survives a
// transaction, no session parameter is passed on) on both paths, and each
// run passes its consistency check; an isolation level the server's default
// is not, or a schema other than public, is refused in one line, exit 2
// (issue 31). It replaces the refusal
// of every TPC-C run through such a pooler.
func TestTpccRunThroughPooler(t *testing.T) {
	t.Parallel()
	lab := labDir(t)
	if r := runPgoltp(t, 5*time.Minute, "--lab", lab, "cluster", "up", "--pooler", "pgbouncer"); r.code != 0 {
		t.Fatalf("cluster up: exit %d: %s", r.code, r.stderr)
	}
	t.Cleanup(func() { runPgoltp(t, time.Minute, "--lab", lab, "cluster", "destroy") })
	if r := runPgoltp(t, 5*time.Minute, "--lab", lab, "tpcc", "load", "--warehouses", "1"); r.code != 0 {
		t.Fatalf("load: exit %d: %s", r.code, r.stderr)
	}
	for _, path := range []string{"client", "server"} {
		r := runPgoltp(t, 5*time.Minute, "--lab", lab, "--json", "tpcc", "run", "--via", "pooler", "--path", path,
			"--terminals", "4", "--conns", "4", "--txns-per-terminal", "100", "--progress", "0", "--seed", "7")
		if r.code != 0 {
			t.Fatalf("%s path through the pooler: exit %d: %s", path, r.code, r.stderr)
		}
		var res struct {
			Errors int64 `json:"errors"`
			Txns   []struct {
				Count int64 `json:"count"`
			} `json:"txns"`
			Check *struct {
				Passed  bool `json:"passed"`
				Results []any
			} `json:"check"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
			t.Fatalf("--json output: %v\n%s", err, r.stdout)
		}
		var total int64
		for _, x := range res.Txns[:5] {
			total += x.Count
		}
		if total != 400 || res.Errors != 0 || res.Check == nil || !res.Check.Passed || len(res.Check.Results) == 0 {
			t.Errorf("%s path through the pooler: %d transactions (want 400), %d errors, check %+v", path, total, res.Errors, res.Check)
		}
	}
	r := runPgoltp(t, 5*time.Minute, "--lab", lab, "tpcc", "run", "--via", "pooler", "--isolation", "serializable",
		"--txns-per-terminal", "1", "--progress", "0")
	assertOneLineProblem(t, r, "--isolation serializable", "read committed", "--via direct")
	r = runPgoltp(t, 5*time.Minute, "--lab", lab, "tpcc", "run", "--via", "pooler", "--schema", "tpcc2",
		"--txns-per-terminal", "1", "--progress", "0")
	assertOneLineProblem(t, r, "--schema tpcc2", "search_path", "--via direct")
}
