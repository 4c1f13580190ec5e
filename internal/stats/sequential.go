package stats

import "fmt"

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
