package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestQuickstart is the README's main job, small: a managed cluster, a TPC-C
// load, a measured run, the consistency check and the HTML report.
func TestQuickstart(t *testing.T) {
	t.Parallel()
	lab := labDir(t)
	t.Cleanup(func() { runPgoltp(t, time.Minute, "cluster", "destroy", "--lab", lab) })
	r := runPgoltp(t, 10*time.Minute, "quickstart", "--lab", lab, "--warehouses", "1", "--duration", "5s")
	if r.code != 0 {
		t.Fatalf("quickstart: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"tpmC", "new_order", "input audits"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "condition_12") || strings.Contains(r.stderr, "FAIL condition") {
		t.Errorf("the consistency check did not run or failed:\n%s", r.stderr)
	}
	reports, _ := filepath.Glob(filepath.Join(lab, "reports", "*.html"))
	if len(reports) != 1 {
		t.Fatalf("want one HTML report in %s/reports, got %v", lab, reports)
	}
	html, err := os.ReadFile(reports[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "tpmC", "new_order", "consistency check (full): 17 PASS, 0 FAIL, 1 SKIP"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	r = runPgoltp(t, time.Minute, "runs", "--lab", lab)
	if r.code != 0 || !strings.Contains(r.stdout, "complete") {
		t.Errorf("runs: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The password never appears in what a person sees.
	pw, _ := os.ReadFile(filepath.Join(lab, "password"))
	if p := strings.TrimSpace(string(pw)); p != "" && strings.Contains(r.stdout+r.stderr+string(html), p) {
		t.Error("the cluster password was printed or stored in the report")
	}
}
