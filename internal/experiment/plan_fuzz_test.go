package experiment_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/experiment"
)

// planSeeds are the plans of the table tests, as FuzzParsePlan's seeds
// (testdata/plans holds whole plan files).
var planSeeds = []string{
	"", "duration: 5s\nstepz: []\n", "steps: [{settings: {work_mem: 8MB}}]\n",
	"duration: 100ms\nsteps: [{settings: {work_mem: 8MB}}]\n",
	"duration: 5s\nrepetitions: 1\nsteps: [{settings: {work_mem: 8MB}}]\n",
	"duration: 5s\nrepetitions: 0\nsteps: [{settings: {work_mem: 8MB}}]\n",
	"duration: 5s\nmin_effect: 0%\nsteps: [{settings: {work_mem: 8MB}}]\n",
	"duration: 5s\nrepetitions: many\nsteps: [{settings: {work_mem: 8MB}}]\n",
	"duration: 5s\nrepetitions: 3\nmax_repetitions: 8\nsteps: [{settings: {work_mem: 8MB}}]\n",
	"duration: 5s\nmin_effect: lots\nsteps: [{settings: {work_mem: 8MB}}]\n",
	"duration: 5s\nmin_effect: 100%\nsteps: [{settings: {work_mem: 8MB}}]\n",
	"duration: 5s\nmin_effect: NaN%\nsteps: [{settings: {work_mem: 8MB}}]\n",
	"duration: 5s\nconfidence: .nan\nsteps: [{settings: {work_mem: 8MB}}]\n",
	"duration: 5s\nsteps: [{name: x}]\n", "duration: 5s\nsteps: [{settings: {work_mem: [1, 2]}}]\n",
	"duration: 5s\nsteps: [{name: a, settings: {work_mem: 8MB}}, {name: a, settings: {work_mem: 9MB}}]\n",
	"duration: [5s\n", "duration: 5s\nsteps: [{settings: {listen_addresses: '*'}}]\n",
	"duration: 5s\nbaseline: {settings: {restore_command: 'cp x y'}}\nsteps: [{settings: {work_mem: 8MB}}]\n",
	"workload: {kind: tpcb}\nduration: 3s\nversions: [9, 15]\n",
	"duration: 3s\nfailover: {sync: [on, off], kill: [network]}\n",
	"workload: {kind: tpcc}\nduration: 3s\nversions: [10, 15]\nrepetitions: -1\n",
	"duration: 5s\nsteps: [{name: 'a\nb', settings: {work_mem: 8MB}}]\n",
}

// FuzzParsePlan: a plan is either refused with a one-line error or accepted
// with every field within the bounds Check promises (finite numbers, named
// and distinct steps), and checking an accepted plan again changes nothing.
func FuzzParsePlan(f *testing.F) {
	for _, s := range planSeeds {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "plans", "*.yaml"))
	if len(files) == 0 {
		f.Fatal("no plans in testdata/plans")
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if _, err := experiment.ParsePlan(bytes.NewReader(b)); err != nil {
			f.Fatalf("%s: %v", name, err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := experiment.ParsePlan(bytes.NewReader(data))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("the error is not one line: %q", err)
			}
			return
		}
		if msg := planOutOfBounds(p); msg != "" {
			t.Fatalf("accepted a plan with %s: %+v", msg, p)
		}
		again := *p
		again.Steps = slices.Clone(p.Steps)
		if err := again.Check(); err != nil || !reflect.DeepEqual(&again, p) {
			t.Fatalf("checking an accepted plan again: %v\n%+v\nbecame\n%+v", err, p, &again)
		}
	})
}

// planOutOfBounds names the first field of a checked plan outside what
// Plan.Check promises, or is "".
func planOutOfBounds(p *experiment.Plan) string {
	switch {
	case p.Workload.Kind == "" || p.Workload.Scale < 1 || p.Workload.Clients < 1:
		return "a workload without kind, scale or clients"
	case p.Duration < time.Second || p.Prewarm < 0:
		return "a duration under 1s or a negative prewarm"
	case p.Failover != nil:
		if len(p.Failover.Sync) == 0 || len(p.Failover.Kill) == 0 || len(p.Steps) > 0 || len(p.Versions) > 0 {
			return "a failover plan without levels or kills, or with steps"
		}
		return ""
	case len(p.Versions) > 0:
		if len(p.Versions) < 2 || p.Repetitions.Auto || p.Repetitions.Pairs < 1 || p.Repetitions.Pairs > 100 || len(p.Steps) > 0 {
			return "a version study without two majors, runs per major or with steps"
		}
		return ""
	case !(p.Confidence >= 0.5 && p.Confidence < 1):
		return "a confidence outside [0.5, 1)"
	case p.Repetitions.Auto && (p.MaxRepetitions < 2 || p.MaxRepetitions > 100 || !(p.MinEffect > 0 && p.MinEffect < 100)):
		return "auto repetitions without bounds"
	case !p.Repetitions.Auto && (p.Repetitions.Pairs < 2 || p.Repetitions.Pairs > 100):
		return "fixed repetitions outside 2..100"
	case len(p.Steps) == 0:
		return "no steps"
	}
	seen := map[string]bool{}
	for _, s := range p.Steps {
		if s.Name == "" || seen[s.Name] || len(s.Settings)+len(s.Layout) == 0 {
			return "an unnamed, twice-named or empty step"
		}
		seen[s.Name] = true
	}
	return ""
}

// The example plan file is the plan 'pgoltp experiment --example' prints.
func TestExamplePlanFile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "plans", "example.yaml"))
	if err != nil || string(b) != experiment.ExamplePlan {
		t.Errorf("testdata/plans/example.yaml differs from experiment.ExamplePlan (%v)", err)
	}
}
