package e2e_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWorkloadKindsFromRegistry: every command that takes a workload by name
// refuses one the registry does not offer for its use, with exit 2 and one
// line naming the workloads it does take (the lists come from the registry).
func TestWorkloadKindsFromRegistry(t *testing.T) {
	t.Parallel()
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(plan, []byte("workload: {kind: ledger}\nduration: 3s\nversions: [10, 15]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		args     []string
		mentions []string
	}{
		{"versions plan", []string{"experiment", plan}, []string{"versions: compares tpcb, tpcc or script, not ledger"}},
		{"compare-versions", []string{"compare-versions", "--pg", "15,16", "--workload", "ledger"}, []string{`--workload "ledger": use tpcb, tpcc or script`}},
		{"tune", []string{"tune", "--workload", "ledger"}, []string{"--workload tpcb, tpcc or script", `workload "ledger"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runPgoltp(t, time.Minute, append([]string{"--lab", filepath.Join(t.TempDir(), "lab")}, c.args...)...)
			assertOneLineProblem(t, r, c.mentions...)
		})
	}
}
