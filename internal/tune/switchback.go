package tune

// The switchback design in the search (issue 29 point 1): a comparison of
// two configurations that differ only in settings taking effect on reload
// within seconds (settings.Switchable) is measured in one run alternating
// them, instead of pairs of separate runs (paired), when Design is auto.

import (
	"context"
	"fmt"
	"time"

	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/stats"
	"github.com/pgoltp/pgoltp/internal/switchback"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Designs of a comparison.
const (
	DesignSeparate   = "separate runs"
	DesignSwitchback = "switchback"
)

// designFor is how a and b are compared, and why not by switchback: only
// with Design auto, a throughput objective (blocks have per-second
// throughput, not p99 or CPU), and every differing setting switchable.
func (s *session) designFor(a, b map[string]string) (string, string) {
	if s.Design != "auto" {
		return DesignSeparate, ""
	}
	if s.Objective != ObjectiveTPS && s.Objective != ObjectiveTPMC {
		return DesignSeparate, "objective " + s.Objective + " is not measured per block"
	}
	diff := changed(b, a)
	for n := range changed(a, b) {
		diff[n] = b[n]
	}
	if len(diff) == 0 {
		return DesignSeparate, "nothing differs"
	}
	for _, n := range sortedKeys(diff) {
		if ok, why := settings.Switchable(n, s.major); !ok {
			return DesignSeparate, why
		}
	}
	return DesignSwitchback, ""
}

// switchbackDesign is a switchback comparison: as much machine time as
// confirmMinPairs, the fewest pairs of separate runs (2 × MinPairs trial runs),
// shaped by switchback.Fit.
func (s *session) switchbackDesign() switchback.Design {
	d := switchback.Fit(time.Duration(2*confirmMinPairs) * s.TrialTime)
	d.Seed = uint64(s.Seed) + uint64(time.Now().UnixNano())
	return d
}

// switchbackPaired measures b against a in one run that alternates them,
// every switch through the server's Apply (the refused-settings rule, the
// restore record), and returns b's effect from the paired blocks.
func (s *session) switchbackPaired(a, b map[string]string, role, label string) (stats.Effect, error) {
	if s.outer.Err() != nil {
		return stats.Effect{}, errInterrupted
	}
	d := s.switchbackDesign()
	info := RunInfo{Search: s.state.ID, Role: role, Label: label + " (switchback A/B)", Settings: b, Started: time.Now()}
	if _, err := s.prepare(a, role); err != nil {
		return stats.Effect{}, err
	}
	apply := func(ctx context.Context, values map[string]string) error {
		if err := settings.CheckApplicable(values); err != nil {
			return err
		}
		restarted, err := s.Server.Apply(s.ctx, values)
		if err == nil && restarted {
			err = fmt.Errorf("the server restarted: a switchback run only takes settings that need a reload")
		}
		return err
	}
	var m workload.Measurement
	run := func(ctx context.Context, dur time.Duration) (time.Time, []float64, error) {
		start := time.Now()
		var err error
		m, err = s.Workload.Run(s.ctx, dur)
		return start, m.PerSecond, err
	}
	info.Started = time.Now()
	res, err := switchback.Run(s.ctx, d, a, b, apply, run)
	s.record(info, m, err)
	if err != nil {
		return stats.Effect{}, err
	}
	e := switchback.Estimate(res.Blocks, level)
	s.logf("  %s: switchback, %d pairs of %s blocks (%s dropped after each switch): %s", label, d.Pairs, d.Block, d.Settle, effectText(e))
	return e, nil
}
