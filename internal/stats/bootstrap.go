package stats

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat"
)

// bootstrapResamples is how many block-bootstrap resamples estimate one
// run's uncertainty: enough for a variance within about ±10%, cheap enough
// for thousands of simulated experiments in the tests.
const bootstrapResamples = 400

// blockLength is the length of the bootstrap's blocks for n samples:
// ceil(√n). Per-second throughput is autocorrelated (a checkpoint or a
// vacuum slows several seconds in a row), and blocks must be long enough to
// keep that correlation in each resample; √n is longer than the asymptotic
// n^(1/3) on purpose, because short runs (8–60 samples) with blocks of 2
// underestimate the variance.
func blockLength(n int) int {
	return int(math.Ceil(math.Sqrt(float64(n))))
}

// LogMeanVariance is the variance of log(mean(samples)), the uncertainty of
// one run's level on the log scale, from a circular block bootstrap
// (Politis and Romano) with a deterministic seed. It also returns the
// number of blocks, the independent pieces of information the estimate
// rests on. Fewer than 3 samples or a non-positive mean give NaN: no
// within-run information.
func LogMeanVariance(samples []float64, seed uint64) (variance float64, blocks int) {
	n := len(samples)
	if n < 3 {
		return math.NaN(), 0
	}
	if stat.Mean(samples, nil) <= 0 {
		return math.NaN(), 0
	}
	l := blockLength(n)
	k := (n + l - 1) / l
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	var sum, sumSq float64
	count := 0
	for r := 0; r < bootstrapResamples; r++ {
		var total float64
		taken := 0
		for b := 0; b < k; b++ {
			start := rng.IntN(n)
			for j := 0; j < l && taken < n; j++ {
				total += samples[(start+j)%n]
				taken++
			}
		}
		if total <= 0 {
			continue
		}
		x := math.Log(total / float64(n))
		sum += x
		sumSq += x * x
		count++
	}
	if count < 2 {
		return math.NaN(), 0
	}
	m := sum / float64(count)
	v := (sumSq - float64(count)*m*m) / float64(count-1)
	// Every resample is spread around the run's own mean, which is itself
	// off by the very error being estimated: each autocovariance the blocks
	// carry (lags below l, Bartlett weights summing to l) is short by about
	// Var(mean), so the bootstrap sees (1 − l/n) of the variance. Undo that;
	// for 8 s runs it is the difference between intervals that cover and
	// intervals that do not.
	return v / (1 - float64(l)/float64(n)), k
}
