package stats

import (
	"fmt"
	"math"
)

// Why a sequence of pairs stopped.
const (
	StopExcludesZero    = "the interval excludes zero"
	StopWithinMinEffect = "the interval lies within ±min_effect"
	StopMaxPairs        = "reached max_repetitions"
	StopFixed           = "fixed repetitions"
	StopNotInEffect     = "a setting was not in effect"
)

// Sequential is the stop rule of 'repetitions: auto': add pairs until the
// interval excludes zero (a verdict), or lies within ±MinEffect (whatever
// the effect is, it is smaller than what the user cares about), or
// MaxPairs is reached.
//
// Looking at the interval after every pair and stopping when it excludes
// zero would, with a plain 95% interval, call a setting that does nothing
// better or worse far more often than 5% of the time (every look is a new
// chance). Two guards keep the overall error at Confidence: no look before
// MinPairs (2: one pair has no between-pair spread at all), and a
// Bonferroni correction over the looks that can happen, MinPairs through
// MaxPairs: each look uses the level 1 − (1 − Confidence)/looks (99% for
// 95% over 5 looks). Bonferroni is conservative (the looks are strongly
// correlated, so the real error is below 5%) and costs about 30% of
// interval width at 5 looks; in exchange it needs no assumption about how
// the looks are spaced, and a large effect still stops at 2 pairs.
type Sequential struct {
	MinPairs   int
	MaxPairs   int
	MinEffect  float64 // %, the smallest effect worth knowing about
	Confidence float64 // overall, e.g. 0.95
}

// Looks is the number of times the rule may look at the interval.
func (s Sequential) Looks() int {
	if s.MaxPairs < s.MinPairs {
		return 1
	}
	return s.MaxPairs - s.MinPairs + 1
}

// LookLevel is the confidence level of each look's interval.
func (s Sequential) LookLevel() float64 {
	return 1 - (1-s.Confidence)/float64(s.Looks())
}

// Stop says whether the pairs measured so far settle the question, and why.
// e must be computed at LookLevel.
func (s Sequential) Stop(e Effect) (bool, string) {
	switch {
	case e.Pairs < s.MinPairs:
		return false, ""
	case e.Better() || e.Worse():
		return true, StopExcludesZero
	case e.Valid && e.Low > -s.MinEffect && e.High < s.MinEffect:
		return true, StopWithinMinEffect
	case e.Pairs >= s.MaxPairs:
		return true, StopMaxPairs
	}
	return false, ""
}

// Describe says the rule in a line, for reports.
func (s Sequential) Describe() string {
	return fmt.Sprintf("%d to %d pairs, until the interval excludes zero or lies within ±%g%%; each look at %.4g%% (Bonferroni over %d looks: %.0f%% overall)",
		s.MinPairs, s.MaxPairs, s.MinEffect, 100*s.LookLevel(), s.Looks(), 100*s.Confidence)
}

// RunSD is the run-to-run noise of a series of runs of the same settings,
// as the standard deviation of log(level), from successive differences
// (√(mean Δ²/2)): a drift that moves neighbouring runs alike does not count,
// as it does not in pairs. NaN with fewer than 2 positive levels.
func RunSD(levels []float64) float64 {
	var sum float64
	n := 0
	for i := 1; i < len(levels); i++ {
		if levels[i] > 0 && levels[i-1] > 0 {
			d := math.Log(levels[i] / levels[i-1])
			sum += d * d
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return math.Sqrt(sum / float64(n) / 2)
}

// Plan is how many pairs the rule expects to need before its interval
// resolves ±MinEffect (its MDE at LookLevel falls to MinEffect) given
// runs of noise runSD (RunSD), with pairs formed as Paired forms them; ok is
// false when even MaxPairs would not (the comparison may end undecided).
func (s Sequential) Plan(runSD float64) (pairs int, ok bool) {
	if math.IsNaN(runSD) || runSD <= 0 {
		return s.MinPairs, !math.IsNaN(runSD)
	}
	for n := max(2, s.MinPairs); n <= s.MaxPairs; n++ {
		se := runSD * math.Sqrt(pairUp(make([]Run, n+1), make([]Run, n)).unitVarMean) // Var(mean d) for runs of variance runSD²
		if MDE(se, float64(n-1), s.LookLevel()) <= s.MinEffect {
			return n, true
		}
	}
	return s.MaxPairs, false
}
