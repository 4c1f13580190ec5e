package experiment_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/experiment"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/workload/registry"
	"github.com/pgoltp/pgoltp/internal/workload/script"
)

// zipfianScript uses \set random_zipfian, \gset and \if (issue 27's case c).
const zipfianScript = `\set aid random_zipfian(1, 100000 * :scale, 1.1)
SELECT abalance AS bal FROM pgbench_accounts WHERE aid = :aid \gset
\if :bal >= :floor
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;
\else
SELECT 1;
\endif
`

// TestExperimentOnACustomScript: a plan of kind script (a file with its
// weight, a built-in, a -D variable, a protocol) runs two steps against
// the baseline through the registry's script workload and judges each.
func TestExperimentOnACustomScript(t *testing.T) {
	c := pgtest.Cluster(t)
	dsn := pgtest.NewDatabase(t)
	path := filepath.Join(t.TempDir(), "zipf.sql")
	if err := os.WriteFile(path, []byte(zipfianScript), 0o600); err != nil {
		t.Fatal(err)
	}
	plan, err := experiment.ParsePlan(strings.NewReader(`
name: custom script
workload: {kind: script, files: [` + path + `@4], builtins: [select-only@1], defines: {floor: -1000000}, protocol: prepared, clients: 2, jobs: 2}
duration: 2s
repetitions: 2
baseline:
  settings: {commit_delay: 0}
steps:
  - name: group commit
    settings: {commit_delay: 50, commit_siblings: 2}
  - name: more work_mem
    settings: {work_mem: 16MB}
`))
	if err != nil {
		t.Fatal(err)
	}
	pw := plan.Workload
	w, err := registry.Build(pw.Kind, registry.Spec{Scale: pw.Scale, Clients: pw.Clients, Script: script.Options{Files: pw.Files,
		Builtins: pw.Builtins, Defines: pw.DefineList(), Protocol: pw.Protocol, Jobs: pw.Jobs, Init: pw.Init}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.(interface{ Validate() error }).Validate(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	e := &experiment.Experiment{Plan: plan, Workload: w, Server: c, DSN: dsn, Log: &log}
	rep, err := e.Run(context.Background())
	if err != nil {
		t.Fatalf("experiment: %v\n%s", err, log.String())
	}
	if len(rep.Steps) != 2 {
		t.Fatalf("%d steps, want 2", len(rep.Steps))
	}
	for i, s := range rep.Steps {
		for j, r := range s.Runs {
			if r.Measurement.Transactions == 0 || r.Measurement.P99 <= 0 || len(r.Measurement.PerSecond) == 0 {
				t.Errorf("step %d run %d measured nothing: %+v", i, j, r.Measurement)
			}
		}
		switch s.Verdict {
		case experiment.VerdictBetter, experiment.VerdictWorse, experiment.VerdictSame:
		default:
			t.Errorf("step %d: verdict %q", i, s.Verdict)
		}
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "verdict (objective tps):") || !strings.Contains(text.String(), "script") {
		t.Errorf("text report:\n%s", text.String())
	}
	t.Log("\n" + text.String())
}
