package experiment

import (
	"fmt"

	"github.com/pgoltp/pgoltp/internal/settings"
)

// A step's data path (issue 31): via: pooler runs the step's workload
// through the lab's connection pooler while the baseline goes straight to
// PostgreSQL, so the pooler's cost is measured in pairs with the same
// statistics as a setting's. Loading, warming, checkpoints and reading
// settings back always go straight to PostgreSQL.
const (
	ViaDirect = "direct"
	ViaPooler = "pooler"
)

// DataPathLabel labels via: pooler among a step's settings: not a server
// setting, the path the workload's connections take.
const DataPathLabel settings.Risk = "data path"

// checkVia checks a step's via: (baseline says whether it is the baseline:
// the baseline is the direct path, what a step through the pooler is
// compared with).
func checkVia(s *Step, baseline bool) error {
	switch {
	case s.Via == "":
		s.Via = ViaDirect
	case s.Via != ViaDirect && s.Via != ViaPooler:
		return fmt.Errorf("via: %s is not a data path: use via: direct or via: pooler", s.Via)
	case baseline && s.Via == ViaPooler:
		return fmt.Errorf("via: pooler on the baseline: the baseline is the direct path; put via: pooler on a step")
	}
	return nil
}

// UsesPooler says some step runs through the pooler: the experiment then
// needs Experiment.PoolerDSN.
func (p *Plan) UsesPooler() bool {
	for _, s := range p.Steps {
		if s.Via == ViaPooler {
			return true
		}
	}
	return false
}

// viaPair labels a step through the pooler among its settings.
func viaPair(s Step) []settings.Pair {
	if s.Via != ViaPooler {
		return nil
	}
	return []settings.Pair{{Name: "via", Value: ViaPooler, Risk: DataPathLabel, Why: "the step's workload connects through the lab's pooler; the baseline's straight to PostgreSQL"}}
}

// dataDSN is where an arm's workload connects: the step's arm of a step
// with via: pooler through the pooler, every other arm straight.
func (e *Experiment) dataDSN(arm string, step Step) string {
	if arm == ArmStep && step.Via == ViaPooler {
		return e.PoolerDSN
	}
	return e.DSN
}
