package ossettings

import (
	"fmt"
	"strings"
)

// Recommendation is one OS fix doctor recommends, as an experiment step.
type Recommendation struct {
	Name  string // the finding's id: "dirty-writeback"
	Title string // what doctor found
	OS    map[string]string
}

// planHeader is the workload part of a plan of source's recommendations
// ("doctor"); edit it in the plan written (or give 'experiment
// --from-doctor' a plan whose header to use).
func planHeader(source string) string {
	return fmt.Sprintf(`# %[1]s's OS recommendations as an experiment plan, one step each
# (machine-wide: run as root with 'pgoltp experiment --allow-os PLAN.yaml').
name: %[1]s's OS recommendations
workload: {kind: tpcb, scale: 1, clients: 4}
duration: 60s
repetitions: auto
`, source)
}

// PlanText is doctor's recs as a plan: the header and one step per
// recommendation, each with its os: block.
func PlanText(recs []Recommendation) string {
	return PlanTextFrom("doctor", nil, recs)
}

// PlanTextFrom is PlanText for another command's recommendations (source:
// "advise"), each step measured on top of the baseline's settings.
func PlanTextFrom(source string, baseline map[string]string, recs []Recommendation) string {
	header := planHeader(source)
	if len(baseline) > 0 {
		var kv []string
		for _, n := range Values(baseline).Sorted() {
			kv = append(kv, n+": "+baseline[n])
		}
		header += "baseline:\n  settings: {" + strings.Join(kv, ", ") + "}\n"
	}
	return planText(header, recs)
}

func planText(header string, recs []Recommendation) string {
	var b strings.Builder
	b.WriteString(header)
	b.WriteString("steps:\n")
	for _, r := range recs {
		v, err := Parse(r.OS)
		if err != nil {
			continue // doctor's own recommendations are allow-listed; a test holds it
		}
		var kv []string
		for _, n := range v.Sorted() {
			kv = append(kv, n+": "+v[n])
		}
		fmt.Fprintf(&b, "  - name: %s    # %s\n    os: {%s}\n", r.Name, oneLine(r.Title), strings.Join(kv, ", "))
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
