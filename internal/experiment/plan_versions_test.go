package experiment_test

import (
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/experiment"
)

// A plan with versions: is a version study: majors instead of steps.
func TestPlanVersions(t *testing.T) {
	p, err := experiment.ParsePlan(strings.NewReader(`
workload: {kind: tpcb, scale: 1, clients: 2}
duration: 3s
versions: [10, 15, 18]
baseline:
  settings: {wal_keep_size: 64MB}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Versions) != 3 || p.Repetitions.Pairs != 2 || p.Repetitions.Auto {
		t.Errorf("versions %v, repetitions %+v; want 3 majors and 2 runs each by default", p.Versions, p.Repetitions)
	}
	bad := map[string]string{
		"one major":       "workload: {kind: tpcb}\nduration: 3s\nversions: [15]\n",
		"too old":         "workload: {kind: tpcb}\nduration: 3s\nversions: [9, 15]\n",
		"twice":           "workload: {kind: tpcb}\nduration: 3s\nversions: [15, 15]\n",
		"steps too":       "workload: {kind: tpcb}\nduration: 3s\nversions: [10, 15]\nsteps:\n  - settings: {work_mem: 8MB}\n",
		"layout":          "workload: {kind: tpcb}\nduration: 3s\nversions: [10, 15]\nbaseline: {layout: {fillfactor: 90}}\n",
		"zero repetition": "workload: {kind: tpcc}\nduration: 3s\nversions: [10, 15]\nrepetitions: -1\n",
		"refused":         "workload: {kind: tpcb}\nduration: 3s\nversions: [10, 15]\nbaseline: {settings: {listen_addresses: '*'}}\n",
	}
	for name, plan := range bad {
		if _, err := experiment.ParsePlan(strings.NewReader(plan)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := experiment.ParsePlan(strings.NewReader(bad["refused"])); err == nil || !strings.Contains(err.Error(), "never sets listen_addresses") {
		t.Errorf("a versions plan with listen_addresses: %v, want the refusal", err)
	}
}

// A plan with builds: is a build study: builds of 'pgoltp build' instead of
// steps, of one major, so not with versions:.
func TestPlanBuilds(t *testing.T) {
	p, err := experiment.ParsePlan(strings.NewReader("workload: {kind: tpcc, scale: 10}\nduration: 60s\nbuilds: [default, o3-native, clang]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Builds) != 3 || p.Repetitions.Pairs != 2 {
		t.Errorf("builds %v, repetitions %+v; want 3 builds and 2 runs each by default", p.Builds, p.Repetitions)
	}
	bad := map[string]string{
		"one build":     "builds: [default]\n",
		"twice":         "builds: [default, default]\n",
		"empty name":    "builds: [default, '']\n",
		"with versions": "builds: [default, clang]\nversions: [10, 15]\n",
		"steps too":     "builds: [default, clang]\nsteps:\n  - settings: {work_mem: 8MB}\n",
	}
	for name, plan := range bad {
		if _, err := experiment.ParsePlan(strings.NewReader("workload: {kind: tpcc}\nduration: 3s\n" + plan)); err == nil || !strings.Contains(err.Error(), "builds") {
			t.Errorf("%s: %v, want a refusal naming builds", name, err)
		}
	}
}
