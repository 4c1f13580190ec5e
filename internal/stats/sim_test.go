package stats

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat"
)

// machine is a synthetic machine for simulated experiments: every run is a
// series of per-second throughput samples around a level, with a known
// effect for the step arm, AR(1) autocorrelation within a run and drift
// across runs.
type machine struct {
	tps     float64 // baseline throughput at the start
	effect  float64 // true effect of the step, as a ratio − 1 (0.10 = +10%)
	seconds int     // samples per run
	cv      float64 // per-second coefficient of variation (log scale sd)
	phi     float64 // AR(1) coefficient of the per-second noise
	// drift: the machine's speed changes linearly by trend per run slot
	// and wanders smoothly (a slow sine of amplitude wave, period 11 slots,
	// random phase), as a neighbour's load would.
	trend, wave float64
	// runJitter is a run-level shock (log-scale sd) that the per-second
	// samples do not show: what only more pairs can reveal.
	runJitter float64
}

// experiment simulates B1 S1 B2 S2 … Bn Sn Bn+1.
func (m machine) experiment(rng *rand.Rand, pairs int) (baseline, step []Run) {
	phase := rng.Float64() * 2 * math.Pi
	for slot := 0; slot < 2*pairs+1; slot++ {
		level := math.Log(m.tps) + m.trend*float64(slot) + m.wave*math.Sin(phase+2*math.Pi*float64(slot)/11) + m.runJitter*rng.NormFloat64()
		isStep := slot%2 == 1
		if isStep {
			level += math.Log1p(m.effect)
		}
		r := m.run(rng, level)
		if isStep {
			step = append(step, r)
		} else {
			baseline = append(baseline, r)
		}
	}
	return baseline, step
}

// run draws one run's samples around exp(logLevel); Level is their mean, as
// transactions/elapsed is for a real run.
func (m machine) run(rng *rand.Rand, logLevel float64) Run {
	s := make([]float64, m.seconds)
	e := m.cv * rng.NormFloat64() // stationary start
	innov := m.cv * math.Sqrt(1-m.phi*m.phi)
	for i := range s {
		if i > 0 {
			e = m.phi*e + innov*rng.NormFloat64()
		}
		s[i] = math.Exp(logLevel + e)
	}
	return Run{Level: stat.Mean(s, nil), Samples: s}
}
