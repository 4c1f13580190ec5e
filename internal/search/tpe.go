package search

import "math"

// tpe chooses the next coordinates by the Tree-structured Parzen Estimator
// (Bergstra et al., "Algorithms for Hyper-Parameter Optimization", NIPS
// 2011). Instead of modelling the objective at x, it models where points
// are, given how good they were: the observations are split at the
// gamma-quantile of the objective into good ones, with density l(x), and the
// rest (failed points included), with density g(x). Expected improvement
// over that quantile grows with l(x)/g(x), so TPE draws Candidates points
// from l and keeps the one with the largest ratio. A failed point sits in g
// and so pushes the search away from its neighbourhood.
func (o *Optimizer) tpe() []float64 {
	choices := o.enc.choices()
	goodZ, badZ := o.modelData()
	if len(goodZ) == 0 { // nothing succeeded yet: no notion of good
		return uniform(choices, o.rng)
	}
	l := newParzen(choices, goodZ)
	g := newParzen(choices, badZ)
	var best []float64
	bestScore := math.Inf(-1)
	for range o.opts.Candidates {
		z := l.sample(o.rng)
		if s := l.logPDF(z) - g.logPDF(z); s > bestScore {
			best, bestScore = z, s
		}
	}
	return best
}
