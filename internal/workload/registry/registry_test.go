package registry_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/registry"
	"github.com/pgoltp/pgoltp/internal/workload/script"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// TestEveryWorkloadEndToEnd builds each registered workload at the smallest
// scale and drives it through the interface alone, as experiments and the
// recorder do: load, run 2 s, check; the result must carry the figures the
// rest of pgoltp reads.
func TestEveryWorkloadEndToEnd(t *testing.T) {
	kinds := registry.Kinds()
	for _, want := range []string{"ledger", "tpcb", "tpcc", "script"} {
		if !slices.Contains(kinds, want) {
			t.Errorf("registry lists %v, missing %s", kinds, want)
		}
	}
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			w, err := registry.New(kind, 1, 2)
			if err != nil {
				t.Fatal(err)
			}
			if w.Kind() != kind {
				t.Errorf("Kind() = %q, want %q", w.Kind(), kind)
			}
			dsn := pgtest.NewDatabase(t)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			if err := w.Prepare(ctx, dsn, nil); err != nil {
				t.Fatalf("Prepare: %v", err)
			}
			res, err := w.Run(ctx, dsn, workload.RunOptions{Duration: 2 * time.Second})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Transactions <= 0 || res.TPS() <= 0 || res.P99 <= 0 || res.P50 > res.P99 {
				t.Errorf("measurement: %+v", res.Measurement)
			}
			if len(res.PerSecond) == 0 {
				t.Error("no per-second throughput: experiment statistics need it")
			}
			if len(res.Headline) == 0 || len(res.Params) == 0 {
				t.Errorf("headline %v, params %v: a stored run needs both", res.Headline, res.Params)
			}
			// Experiments' runs are not checked, but every workload can be
			// that has a check of pgoltp's (scripts have none).
			if _, none := w.(workload.Unchecked); none {
				return
			}
			c, err := w.Check(ctx, dsn)
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			if c == nil || !c.Passed || c.Note == "" {
				t.Errorf("check after a clean run: %+v, want a passed check with its note", c)
			}
			if lo, ok := w.(workload.LayoutOptions); ok && !slices.Contains(lo.LayoutOptions(), "fillfactor") {
				t.Errorf("layout options %v lack fillfactor", lo.LayoutOptions())
			}
		})
	}
}

// TestScriptAsAVersionStudyRunsIt: compare-versions' Bench of kind script
// loads with pgbench -i, runs the user's script and gives its figures; init
// none is refused, as each major's cluster starts empty.
func TestScriptAsAVersionStudyRunsIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mine.sql")
	if err := os.WriteFile(path, []byte("\\set aid random(1, 1000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	spec := registry.Spec{Scale: 1, Clients: 2, Duration: 2 * time.Second, Script: script.Options{Files: []string{path}, Defines: []string{"x=1"}}}
	b, err := registry.NewBench("script", spec)
	if err != nil {
		t.Fatal(err)
	}
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	if err := b.Load(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	w, err := b.Workload()
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.Run(ctx, dsn, workload.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := b.Figures(res)
	if f.Txns <= 0 || f.TPS <= 0 || f.P99 <= 0 || res.Elapsed < time.Second || res.Elapsed > 10*time.Second {
		t.Errorf("figures %+v over %v", f, res.Elapsed)
	}
	spec.Script.Init = script.InitNone
	b, _ = registry.NewBench("script", spec)
	if err := b.Load(ctx, dsn); problem.ExitCode(err) != problem.ExitBadInput || !strings.Contains(err.Error(), "init none") {
		t.Errorf("init none in a study: %v, want bad input naming it", err)
	}
}

func TestUnknownWorkload(t *testing.T) {
	_, err := registry.New("tpcx", 1, 1)
	if err == nil || !strings.Contains(err.Error(), "tpcx") || !strings.Contains(err.Error(), "tpcc") {
		t.Errorf("New(tpcx): %v, want an error naming it and the known kinds", err)
	}
}

// TestLayering: the packages above the workload layer reach workloads only
// through internal/workload, never TPC-C or TPC-B themselves.
func TestLayering(t *testing.T) {
	for _, pkg := range []string{"internal/advise", "internal/doctor", "internal/experiment", "internal/crashaudit", "internal/restore", "internal/host", "internal/tune", "internal/study", "internal/report", "internal/recorder", "internal/store", "internal/workload", "internal/group"} {
		out, err := exec.Command("go", "list", "-deps", "github.com/pgoltp/pgoltp/"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasSuffix(dep, "/workload/tpcc") || strings.HasSuffix(dep, "/workload/tpcb") {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
	// The registry is below the commands that use it: it hands the study a
	// Bench, it does not know the study (nor the search, nor experiments).
	out, err := exec.Command("go", "list", "-deps", "github.com/pgoltp/pgoltp/internal/workload/registry").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps registry: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, above := range []string{"/internal/study", "/internal/tune", "/internal/advise", "/internal/doctor", "/internal/experiment", "/internal/crashaudit", "/internal/recorder", "/internal/report"} {
			if strings.HasSuffix(dep, above) {
				t.Errorf("internal/workload/registry depends on %s, a package above it", dep)
			}
		}
	}
}

// TestCapabilities: the optional capabilities live next to the interface,
// and every workload a search drives offers the ones the search and the
// recorder ask for (tables updated in place for --layout, Ready).
func TestCapabilities(t *testing.T) {
	for _, e := range registry.For(registry.Search) {
		w := e.New(registry.Spec{Scale: 1, Clients: 1})
		if u, ok := w.(workload.UpdatedInPlace); !ok || len(u.UpdatedTables()) == 0 {
			t.Errorf("%s: no tables updated in place, so tune --layout has nothing to search", e.Kind)
		}
		if _, ok := w.(workload.Ready); !ok {
			t.Errorf("%s: cannot tell whether the database is ready before a run is stored", e.Kind)
		}
		if e.Scale < 1 || e.Figure == "" || e.Title == "" || e.ScaleFlag == "" {
			t.Errorf("%s: a searchable entry needs a default scale, a primary figure, a title and a scale flag: %+v", e.Kind, e)
		}
	}
}
