package search

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// tpe chooses the next coordinates by the Tree-structured Parzen Estimator
// (Bergstra et al., "Algorithms for Hyper-Parameter Optimization", NIPS
// 2011). Instead of modelling the objective at x, it models where points
// are, given how good they were: the observations are split at the
// gamma-quantile of the objective into good ones, with density l(x), and the
// rest (failed points included), with density g(x). Expected improvement
// over that quantile grows with l(x)/g(x), so TPE draws Candidates points
// from l and keeps the one with the largest ratio.
//
// Failures get a second, explicit term, because the best values often lie
// next to the region that fails (more memory is faster until the server no
// longer starts), where l alone would keep drawing across the edge: the
// score also holds the log probability that x succeeds, estimated from the
// densities of successful points s(x) and failed ones f(x) in proportion to
// their counts (as in constrained TPE, Watanabe and Hutter 2023):
//
//	score(x) = log l(x) - log g(x) + log( nS s(x) / (nS s(x) + nF f(x)) )
func (o *Optimizer) tpe() []float64 {
	choices := o.enc.choices()
	good, rest, failed := o.modelData()
	if len(good) == 0 { // nothing succeeded yet: no notion of good
		return uniform(choices, o.rng)
	}
	l := newParzen(choices, good)
	g := newParzen(choices, append(append([][]float64(nil), rest...), failed...))
	var succeeded, fails *parzen
	if len(failed) > 0 {
		succeeded = newParzen(choices, append(append([][]float64(nil), good...), rest...))
		fails = newParzen(choices, failed)
	}
	logS := math.Log(float64(len(good) + len(rest)))
	logF := math.Log(float64(len(failed)))
	var best []float64
	bestScore := math.Inf(-1)
	for range o.opts.Candidates {
		z := l.sample(o.rng)
		score := l.logPDF(z) - g.logPDF(z)
		if fails != nil {
			ls := logS + succeeded.logPDF(z)
			score += ls - floats.LogSumExp([]float64{ls, logF + fails.logPDF(z)})
		}
		if score > bestScore {
			best, bestScore = z, score
		}
	}
	return best
}
