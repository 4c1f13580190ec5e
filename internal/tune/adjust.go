package tune

// A comparison's effect adjusted for the runs' covariates (issue 29.2), as
// experiments adjust theirs (stats.Adjust, experiment.CovariateOrder): the
// verdict takes the adjusted interval when a covariate was used.

import (
	"fmt"
	"strings"

	"github.com/pgoltp/pgoltp/internal/experiment"
	"github.com/pgoltp/pgoltp/internal/stats"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// adjusted is u, the effect of the step runs over the baseline runs (as,
// bs: their levels; base, step: their measurements), adjusted for the
// host's covariates the runs recorded. Its Effect is what the comparison's
// rule and verdict judge: the adjusted effect when a covariate was used,
// else u itself.
func adjusted(base, step []workload.Measurement, as, bs []stats.Run, u stats.Effect) stats.Adjustment {
	var cands []stats.Covariate
	for _, name := range experiment.CovariateOrder {
		ca, okA := covariateOf(base, name)
		cb, okB := covariateOf(step, name)
		if okA && okB {
			cands = append(cands, stats.Covariate{Name: name, Diff: stats.PairDiffs(ca, cb)})
		}
	}
	return stats.AdjustPaired(as, bs, cands, u)
}

// covariateOf is a covariate in each run; false unless every run has it.
func covariateOf(ms []workload.Measurement, name string) ([]float64, bool) {
	out := make([]float64, len(ms))
	for i, m := range ms {
		v, ok := m.Covariates[name]
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// adjustedText is the log's word on the adjustment: the unadjusted effect
// and the covariates, or why none was used.
func adjustedText(u stats.Effect, a stats.Adjustment) string {
	if len(a.Used) == 0 {
		if len(a.Left) == 0 {
			return ""
		}
		return "; not adjusted (" + strings.Join(a.Left, "; ") + ")"
	}
	return fmt.Sprintf("; adjusted for %s, before adjustment %s", strings.Join(a.Used, ", "), effectText(u))
}
