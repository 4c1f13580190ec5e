package ossettings_test

import (
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/experiment"
	"github.com/pgoltp/pgoltp/internal/ossettings"
)

// TestPlanTextIsAPlan: the plans doctor and advise write name their source
// and parse as experiment plans, advise's with its baseline settings and
// each recommendation a step with its os: block.
func TestPlanTextIsAPlan(t *testing.T) {
	recs := []ossettings.Recommendation{{Name: "dirty-writeback", Title: "dirty pages\n written late",
		OS: map[string]string{"vm.dirty_background_bytes": "268435456"}}}
	for _, c := range []struct{ source, text string }{
		{"doctor", ossettings.PlanText(recs)},
		{"advise", ossettings.PlanTextFrom("advise", map[string]string{"shared_buffers": "1GB"}, recs)},
	} {
		if !strings.Contains(c.text, "name: "+c.source+"'s OS recommendations\n") {
			t.Errorf("%s's plan does not name its source:\n%s", c.source, c.text)
		}
		plan, err := experiment.ParsePlan(strings.NewReader(c.text))
		if err != nil {
			t.Fatalf("%s's plan: %v\n%s", c.source, err, c.text)
		}
		if len(plan.Steps) != 1 || plan.Steps[0].Name != "dirty-writeback" || plan.Steps[0].OS["vm.dirty_background_bytes"] != "268435456" {
			t.Errorf("%s's plan: steps %+v", c.source, plan.Steps)
		}
		if got := plan.Baseline.Settings["shared_buffers"]; (c.source == "advise") != (got == "1GB") {
			t.Errorf("%s's plan: baseline shared_buffers %q", c.source, got)
		}
	}
}
