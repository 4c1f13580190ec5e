package e2e_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestTpccSchemas is seed 002's layout at toy scale: 'tpcc load --schemas 2'
// loads tpcc1 and tpcc2, 'tpcc run --schemas 2' drives both from one process
// and reports each and their merge, the stored run has the merged histograms
// and a figure per schema, and 'tpcc check --schemas 2' checks both.
func TestTpccSchemas(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	lab := labDir(t)
	r := runPgoltp(t, 5*time.Minute, "--dsn", dsn, "tpcc", "load", "--schemas", "2", "--warehouses", "1")
	if r.code != 0 {
		t.Fatalf("load: exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"schema tpcc1: loaded 1 warehouses", "schema tpcc2: loaded 1 warehouses", "2 schemas (tpcc1,tpcc2)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("load output lacks %q:\n%s", want, r.stdout)
		}
	}

	r = runPgoltp(t, 5*time.Minute, "--dsn", dsn, "--lab", lab, "--json", "tpcc", "run", "--schemas", "2", "--duration", "3s", "--conns", "1", "--progress", "0")
	if r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	type txn struct {
		Name  string `json:"name"`
		Count int64  `json:"count"`
	}
	var out struct {
		TpmC    float64 `json:"tpmc"`
		Txns    []txn   `json:"txns"`
		Schemas []struct {
			Options struct{ Schema string }
			TpmC    float64 `json:"tpmc"`
			Txns    []txn   `json:"txns"`
		} `json:"schemas"`
		RunID string `json:"run_id"`
		Check *struct {
			Passed  bool              `json:"passed"`
			Schemas []json.RawMessage `json:"schemas"`
		} `json:"check"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("run --json: %v\n%s", err, r.stdout)
	}
	if len(out.Schemas) != 2 || out.RunID == "" || out.Check == nil || !out.Check.Passed || len(out.Check.Schemas) != 2 {
		t.Fatalf("want 2 schema results, a stored run and a passed check of both schemas, got %+v", out)
	}
	newOrders := func(ts []txn) int64 {
		for _, x := range ts {
			if x.Name == "new_order" {
				return x.Count
			}
		}
		return 0
	}
	var sum float64
	var sumNO int64
	for i, s := range out.Schemas {
		if want := []string{"tpcc1", "tpcc2"}[i]; s.Options.Schema != want || s.TpmC <= 0 {
			t.Errorf("schema result %d: %s, tpmC %v; want %s driven", i, s.Options.Schema, s.TpmC, want)
		}
		sum += s.TpmC
		sumNO += newOrders(s.Txns)
	}
	if math.Abs(sum-out.TpmC) > 1e-6*out.TpmC || newOrders(out.Txns) != sumNO {
		t.Errorf("schemas' tpmC add up to %v, the run says %v; New-Orders %d vs %d", sum, out.TpmC, sumNO, newOrders(out.Txns))
	}

	r = runPgoltp(t, time.Minute, "--lab", lab, "report", out.RunID, "--format", "json")
	if r.code != 0 {
		t.Fatalf("report: exit %d: %s", r.code, r.stderr)
	}
	var stored struct {
		Headline []struct {
			Name  string  `json:"name"`
			Value float64 `json:"value"`
		} `json:"headline"`
		Latency []struct {
			Type  string `json:"type"`
			Count int64  `json:"count"`
		} `json:"latency"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &stored); err != nil {
		t.Fatalf("report --format json: %v", err)
	}
	figures := map[string]float64{}
	for _, f := range stored.Headline {
		figures[f.Name] = f.Value
	}
	for i, s := range out.Schemas {
		name := "tpmC[" + s.Options.Schema + "]"
		if v, ok := figures[name]; !ok || v != math.Floor(out.Schemas[i].TpmC) {
			t.Errorf("stored %s = %v (present %v), want %v", name, v, ok, math.Floor(out.Schemas[i].TpmC))
		}
	}
	for _, l := range stored.Latency {
		if l.Type == "new_order" && l.Count != sumNO {
			t.Errorf("stored new_order histogram holds %d, want the merge of the schemas' %d", l.Count, sumNO)
		}
	}

	r = runPgoltp(t, 2*time.Minute, "--dsn", dsn, "tpcc", "check", "--schemas", "2", "--quick")
	if r.code != 0 || !strings.Contains(r.stdout, "schema tpcc1") || !strings.Contains(r.stdout, "schema tpcc2") || !strings.Contains(r.stdout, "2 schemas (tpcc1,tpcc2): PASS") {
		t.Errorf("check --schemas 2: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// One line of bad input, before anything runs.
	for _, c := range []struct {
		args     []string
		mentions []string
	}{
		{[]string{"tpcc", "run", "--schema", "tpcc1", "--schemas", "2"}, []string{"--schema and --schemas"}},
		{[]string{"tpcc", "load", "--schemas", "2", "--schema", "x"}, []string{"--schema and --schemas"}},
		{[]string{"tpcc", "check", "--schema", "tpcc1", "--schemas", "tpcc1,tpcc2"}, []string{"--schema and --schemas"}},
		{[]string{"tpcc", "run", "--schemas", "0"}, []string{"--schemas"}},
		{[]string{"tpcc", "run", "--schemas", "a,a"}, []string{"twice"}},
		{[]string{"tpcc", "run", "--schemas", "tpcc1,tpcc3", "--duration", "1s"}, []string{"tpcc3", "pgoltp tpcc load --schemas tpcc1,tpcc3"}},
		{[]string{"tpcc", "run", "--schemas", "3", "--duration", "1s"}, []string{"tpcc3", "pgoltp tpcc load --schemas 3"}},
	} {
		r := runPgoltp(t, time.Minute, append([]string{"--dsn", dsn, "--lab", lab}, c.args...)...)
		assertOneLineProblem(t, r, c.mentions...)
	}
	r = runPgoltp(t, time.Minute, "--lab", lab, "runs", "--format", "json")
	if n := strings.Count(r.stdout, `"id"`); n != 1 {
		t.Errorf("want exactly the one stored run after the bad input, got %d", n)
	}
}
