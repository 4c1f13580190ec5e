package search

import (
	"math"
	"math/rand"
	"sort"
	"testing"
)

// Known test functions and a harness that runs a whole search on one.

// braninOptimum is the minimum of Branin, reached at (-π, 12.275),
// (π, 2.275) and (9.42478, 2.475).
const braninOptimum = 0.397887

func braninSpace(t testing.TB) *Space {
	s, err := NewSpace(Float("x1", -5, 10, false), Float("x2", 0, 15, false))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// branin is the Branin-Hoo function (Dixon and Szegő 1978).
func branin(p Point) float64 {
	x1, x2 := p[0], p[1]
	const (
		a = 1.0
		r = 6.0
		s = 10.0
	)
	b := 5.1 / (4 * math.Pi * math.Pi)
	c := 5 / math.Pi
	tt := 1 / (8 * math.Pi)
	return a*math.Pow(x2-b*x1*x1+c*x1-r, 2) + s*(1-tt)*math.Cos(x1) + s
}

// quadraticSpace has six dimensions of every kind the tuner uses: linear
// and log-scaled floats and integers and a categorical.
func quadraticSpace(t testing.TB) *Space {
	s, err := NewSpace(
		Float("ratio", 0, 1, false),
		Float("cost", 0.5, 8, false),
		Int("buffers_mb", 16, 16384, true),
		Int("wal_mb", 32, 65536, true),
		Float("delay_ms", 1, 10000, true),
		Choice("compression", "off", "pglz", "lz4", "zstd"),
	)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// quadratic is a bowl with its top 0 at an interior point, measured in the
// unit space (so in log units for log dimensions), with the categorical
// worth as much as a fair distance on a numeric axis.
func quadratic(s *Space, p Point) float64 {
	target := []float64{0.7, 0.3, 0.75, 0.6, 0.35}
	v := 0.0
	for i, tgt := range target {
		d := s.dims[i].toUnit(p[i]) - tgt
		v -= d * d
	}
	if s.dims[5].Choices[int(p[5])] != "lz4" {
		v -= 0.1
	}
	return v
}

// run searches with budget evaluations of objective (plus noise of the given
// standard deviation) and returns the true value of the point Best picks.
func run(t testing.TB, s *Space, opts Options, budget int, noise float64, objective func(Point) float64) float64 {
	o, err := New(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	noiseRNG := rand.New(rand.NewSource(opts.Seed + 1_000_003))
	for range budget {
		p := o.Suggest()
		if err := o.Observe(p, objective(p)+noise*noiseRNG.NormFloat64(), false); err != nil {
			t.Fatal(err)
		}
	}
	best, ok := o.Best()
	if !ok {
		t.Fatal("no best point after the budget")
	}
	return objective(best.Point)
}

// trialStats summarises many seeded searches: the share that got within
// tolerance of the optimum and the median regret.
type trialStats struct {
	success float64
	median  float64
}

func compare(t testing.TB, seeds int, search func(seed int64) (regret float64), tolerance float64) trialStats {
	regrets := make([]float64, seeds)
	hits := 0
	for i := range regrets {
		regrets[i] = search(int64(i + 1))
		if regrets[i] <= tolerance {
			hits++
		}
	}
	sort.Float64s(regrets)
	return trialStats{success: float64(hits) / float64(seeds), median: regrets[seeds/2]}
}
