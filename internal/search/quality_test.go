package search

import "testing"

// The search must beat random search clearly, over many seeds, within the
// tuner's kind of budget. The figures are logged so a change of method shows
// its effect.

func TestTPEBeatsRandomOnBranin(t *testing.T) {
	const (
		seeds     = 100
		budget    = 30
		tolerance = 0.5 // within 0.5 of the optimum 0.397887 (function range ~0-300)
	)
	s := braninSpace(t)
	regret := func(m Method) func(int64) float64 {
		return func(seed int64) float64 {
			return -run(t, s, Options{Seed: seed, Method: m}, budget, 0, func(p Point) float64 { return -branin(p) }) - braninOptimum
		}
	}
	tpe := compare(t, seeds, regret(TPE), tolerance)
	rnd := compare(t, seeds, regret(Random), tolerance)
	t.Logf("Branin, %d evaluations, %d seeds: TPE success %.0f%% median regret %.3f; random success %.0f%% median regret %.3f",
		budget, seeds, 100*tpe.success, tpe.median, 100*rnd.success, rnd.median)
	if tpe.success < rnd.success+0.3 || tpe.median >= rnd.median {
		t.Errorf("TPE does not beat random search clearly enough")
	}
}

func TestTPEBeatsRandomOnNoisyQuadratic(t *testing.T) {
	const (
		seeds     = 100
		budget    = 40
		noise     = 0.02
		tolerance = 0.05
	)
	s := quadraticSpace(t)
	regret := func(m Method) func(int64) float64 {
		return func(seed int64) float64 {
			return -run(t, s, Options{Seed: seed, Method: m}, budget, noise, func(p Point) float64 { return quadratic(s, p) })
		}
	}
	tpe := compare(t, seeds, regret(TPE), tolerance)
	rnd := compare(t, seeds, regret(Random), tolerance)
	t.Logf("noisy quadratic, 6 dims, %d evaluations, noise sd %g, %d seeds: TPE success %.0f%% median regret %.3f; random success %.0f%% median regret %.3f",
		budget, noise, seeds, 100*tpe.success, tpe.median, 100*rnd.success, rnd.median)
	if tpe.success < rnd.success+0.3 || tpe.median >= rnd.median {
		t.Errorf("TPE does not beat random search clearly enough")
	}
}
