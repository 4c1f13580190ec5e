package experiment_test

import (
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/experiment"
)

// TestPlanVia: a step may say via: pooler (and nothing else) against the
// direct baseline; a bad path, or the pooler on the baseline, is one line
// naming via (issue 31).
func TestPlanVia(t *testing.T) {
	p, err := experiment.ParsePlan(strings.NewReader("duration: 5s\nsteps:\n  - name: pgbouncer\n    via: pooler\n  - name: spaced\n    settings: {checkpoint_timeout: 15min}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.UsesPooler() || p.Steps[0].Via != experiment.ViaPooler || p.Steps[1].Via != experiment.ViaDirect || p.Baseline.Via != experiment.ViaDirect {
		t.Errorf("via: steps %+v, baseline %+v; want the first step through the pooler, the rest direct", p.Steps, p.Baseline)
	}
	direct, err := experiment.ParsePlan(strings.NewReader("duration: 5s\nsteps: [{settings: {work_mem: 8MB}, via: direct}]\n"))
	if err != nil || direct.UsesPooler() {
		t.Errorf("via: direct: %v, uses pooler %v", err, direct != nil && direct.UsesPooler())
	}
	for _, c := range []struct{ name, plan, want string }{
		{"unknown path", "duration: 5s\nsteps: [{via: sideways}]\n", "via: sideways is not a data path"},
		{"pooler baseline", "duration: 5s\nbaseline: {via: pooler}\nsteps: [{settings: {work_mem: 8MB}}]\n", "via: pooler on the baseline"},
		{"direct and nothing else", "duration: 5s\nsteps: [{via: direct}]\n", "changes nothing"},
	} {
		_, err := experiment.ParsePlan(strings.NewReader(c.plan))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one line containing %q", c.name, err, c.want)
		}
	}
}
