package tune_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/tune"
	"github.com/pgoltp/pgoltp/internal/workload/registry"
	"github.com/pgoltp/pgoltp/internal/workload/script"
)

// TestSearchOnACustomScript: a short search (two trials of a second) runs
// on the registry's script workload with a custom script, as 'pgoltp tune
// --workload script -f FILE@W -b NAME@W -D k=v' builds it, and every trial
// measures the script.
func TestSearchOnACustomScript(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a small search")
	}
	c := pgtest.Cluster(t)
	dsn := pgtest.NewDatabase(t)
	path := filepath.Join(t.TempDir(), "hot.sql")
	text := "\\set aid random_zipfian(1, :hot, 1.2)\nSELECT abalance AS bal FROM pgbench_accounts WHERE aid = :aid \\gset\n" +
		"\\if :bal > -1000000\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;\n\\endif\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	var kinds []tune.Kind
	for _, e := range registry.For(registry.Search) {
		kinds = append(kinds, tune.Kind{Name: e.Kind, Title: e.Title, Scale: e.Scale, Objective: e.Figure, HotRows: e.HotRows})
	}
	// MaxPairs 2: the comparisons after the trials are not what this test
	// checks; at the default 5 pairs they took most of its two minutes.
	o := tune.Options{Kinds: kinds, Workload: "script", Clients: 2, Budget: 2, Trial: time.Second, Prewarm: time.Second,
		Confirm: 1, Ablation: 1, MaxPairs: 2, Reload: true, Seed: 1}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	w, err := registry.Build("script", registry.Spec{Scale: o.Scale, Clients: o.Clients,
		Script: script.Options{Files: []string{path + "@5"}, Builtins: []string{"select-only@1"}, Defines: []string{"hot=1000"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.(*script.Workload).Validate(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	tuner, err := tune.New(context.Background(), tune.Setup{Options: o, Workload: w, Server: c, DSN: dsn, Lab: t.TempDir(), Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	res, err := tuner.Run(context.Background())
	if err != nil {
		t.Fatalf("search: %v\n%s", err, log.String())
	}
	if len(res.Trials) != 2 || !res.Restored || len(res.Baselines) == 0 {
		t.Fatalf("%d trials, restored %v, %d baselines\n%s", len(res.Trials), res.Restored, len(res.Baselines), log.String())
	}
	for i, tr := range res.Trials {
		if tr.Failed || !(tr.TPS > 0) || tr.RunID == "" {
			t.Errorf("trial %d: failed %v (%s), tps %v, run %q", i, tr.Failed, tr.Error, tr.TPS, tr.RunID)
		}
	}
	if !strings.Contains(res.Workload, "hot.sql@5 + select-only@1") {
		t.Errorf("search of %q, want the script workload's name", res.Workload)
	}
}
