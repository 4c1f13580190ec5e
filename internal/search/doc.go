// Package search is a black-box optimiser: it proposes points of a search
// space, learns from their measured objective, and says which point is best.
// It is the engine of `pgoltp tune` (internal/tune) and holds only the
// mathematics: it must
// not know about PostgreSQL, settings, units, servers or workloads. The
// caller maps settings to dimensions, runs a trial per suggested point, and
// reports the outcome.
//
// # What it holds
//
//   - A Space of named dimensions: Float and Int (bounded, optionally log
//     scaled for multiplicative effects such as memory sizes) and Choice
//     (enum and bool). A dimension with Low == High is fixed.
//   - An Optimizer with an ask/tell interface: Suggest returns the next
//     Point, Observe records its objective (maximised; negate a latency) or
//     its failure (the server did not start: recorded, the search steers
//     away from it and goes on). Warm-start points are suggested first.
//     The same Seed gives the same search.
//   - Noise handling: repeated observations of a point are averaged, and
//     TopK ranks distinct points by an empirical-Bayes estimate that
//     discounts means from few runs, so the caller re-runs the top
//     candidates before declaring a winner; Best is TopK(1).
//
// # Method
//
// After the warm-start points, the first Options.Startup points fill the
// space by Latin hypercube sampling (McKay, Beckman and Conover 1979). Then
// the Tree-structured Parzen Estimator (Bergstra, Bardenet, Bengio and
// Kégl, "Algorithms for Hyper-Parameter Optimization", NIPS 2011) proposes
// each point: observations are split at the Gamma quantile into good and
// bad ones, a Parzen-window density is fitted to each (product kernels,
// Falkner et al. 2018: truncated Gaussians on the unit or log-unit scale,
// smoothed categorical distributions), and of Candidates draws from the good
// density the one maximising l(x)/g(x), times its estimated probability of
// not failing, is chosen. The design follows Optuna's TPE sampler
// (optuna/samplers/_tpe); the code is written from the papers.
//
// Options.Projection makes the search run in a few coordinates mapped into
// the full space by a random hashing embedding (HeSBO, Nayebi et al. 2019),
// LlamaTune's answer (Kanellis et al., VLDB 2022) to tuning a database's
// many settings within a small budget.
//
// Options.Method = Random draws points uniformly instead: the baseline the
// tests hold TPE against.
//
// # Use
//
//	space, err := search.NewSpace(
//		search.Int("shared_buffers_mb", 128, 8192, true),
//		search.Float("random_page_cost", 1, 4, false),
//		search.Choice("wal_compression", "off", "lz4"),
//	)
//	defaults, err := space.PointOf(map[string]any{
//		"shared_buffers_mb": 128, "random_page_cost": 4.0, "wal_compression": "off"})
//	opt, err := search.New(space, search.Options{Seed: seed, WarmStart: []search.Point{defaults}})
//	for range budget {
//		p := opt.Suggest()
//		tps, err := trial(space.Format(p)) // the caller's measurement
//		opt.Observe(p, tps, err != nil)
//	}
//	for _, r := range opt.TopK(3) { // re-run the best few, then ask again
//		opt.Observe(r.Point, rerun(r.Point), false)
//	}
//	best, ok := opt.Best()
//
// To resume a stored search, create the optimizer with the same space and
// options and Observe the stored trials again in order: the start points
// already observed are not suggested again, and the suggestions that follow
// are deterministic (though not those the interrupted search would have
// made next). Suggest assumes each point is observed before the next is
// asked for; several outstanding suggestions are allowed but the model does
// not know about them.
package search
