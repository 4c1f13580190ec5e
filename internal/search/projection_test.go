package search

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// wideSpace has n dimensions cycling through every kind, like a catalog of
// settings.
func wideSpace(t testing.TB, n int) *Space {
	var dims []Dimension
	for i := range n {
		name := fmt.Sprintf("d%02d", i)
		switch i % 5 {
		case 0:
			dims = append(dims, Float(name, -3, 7, false))
		case 1:
			dims = append(dims, Float(name, 0.001, 100, true))
		case 2:
			dims = append(dims, Int(name, 0, 1000, false))
		case 3:
			dims = append(dims, Int(name, 8, 1<<20, true))
		case 4:
			dims = append(dims, Choice(name, "off", "on", "try"))
		}
	}
	s, err := NewSpace(dims...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestProjectionKeepsPointsInsideTheSpace(t *testing.T) {
	s := wideSpace(t, 30)
	o, err := New(s, Options{Seed: 5, Projection: 4})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := o.enc.(*projectedEncoding); !ok {
		t.Fatalf("Projection 4 of 30 dimensions did not project: %T", o.enc)
	}
	rng := rand.New(rand.NewSource(1))
	low := make([]bool, s.Len())
	high := make([]bool, s.Len())
	for i := range 200 {
		p := o.Suggest()
		if err := s.check(p); err != nil {
			t.Fatalf("suggestion %d: %v", i+1, err)
		}
		for j, d := range s.dims {
			u := d.toUnit(p[j])
			low[j] = low[j] || u < 0.3
			high[j] = high[j] || u > 0.7
		}
		if err := o.Observe(p, rng.NormFloat64(), i%9 == 4); err != nil {
			t.Fatal(err)
		}
	}
	for j, d := range s.dims {
		if !low[j] || !high[j] {
			t.Errorf("dimension %s never reached both ends of its range through the projection", d.Name)
		}
	}
}

func TestProjectionEncodeInvertsDecode(t *testing.T) {
	dims := make([]Dimension, 12)
	for i := range dims {
		dims[i] = Float(fmt.Sprintf("f%d", i), 1, 1000, i%2 == 0)
	}
	s, err := NewSpace(dims...)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(2))
	e := newProjection(s, 3, rng)
	for range 50 {
		z := uniform(e.choices(), rng)
		back := e.encode(e.decode(z))
		for k := range z {
			if math.Abs(back[k]-z[k]) > 1e-9 {
				t.Fatalf("encode(decode(%v)) = %v", z, back)
			}
		}
	}
}

// Tuning spaces are wide but few settings matter; searching 6 coordinates
// instead of 25 dimensions must still beat random search there. Only the
// numeric dimensions d00, d01 and d02 count. An embedding reaches their
// optimum exactly only when they follow different coordinates (or ones
// whose signs agree with it), so this also measures what the projection
// costs: full TPE is logged next to it.
func TestProjectionBeatsRandomOnAWideSpace(t *testing.T) {
	s := wideSpace(t, 25)
	objective := func(p Point) float64 {
		v := 0.0
		for i := range 3 {
			d := s.dims[i].toUnit(p[i]) - []float64{0.7, 0.35, 0.6}[i]
			v -= d * d
		}
		return v
	}
	const (
		seeds     = 30
		budget    = 40
		tolerance = 0.01
	)
	regret := func(opts Options) func(int64) float64 {
		return func(seed int64) float64 {
			opts.Seed = seed
			return -run(t, s, opts, budget, 0, objective)
		}
	}
	proj := compare(t, seeds, regret(Options{Projection: 6}), tolerance)
	full := compare(t, seeds, regret(Options{}), tolerance)
	rnd := compare(t, seeds, regret(Options{Method: Random}), tolerance)
	t.Logf("25 dims (3 matter), %d evaluations, %d seeds: projected TPE (6 coordinates) success %.0f%% median regret %.4f; full TPE %.0f%% %.4f; random %.0f%% %.4f",
		budget, seeds, 100*proj.success, proj.median, 100*full.success, full.median, 100*rnd.success, rnd.median)
	if proj.success < rnd.success+0.2 || proj.median >= rnd.median {
		t.Errorf("projected TPE does not beat random search clearly enough")
	}
}
