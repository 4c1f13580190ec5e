package search

import (
	"math"
	"slices"
	"testing"
)

func TestWarmStartPointsComeFirstInOrder(t *testing.T) {
	s := quadraticSpace(t)
	defaults, err := s.PointOf(map[string]any{"ratio": 0.5, "cost": 4.0, "buffers_mb": 128, "wal_mb": 1024, "delay_ms": 200.0, "compression": "off"})
	if err != nil {
		t.Fatal(err)
	}
	advised, err := s.PointOf(map[string]any{"ratio": 0.9, "cost": 1.1, "buffers_mb": int64(4096), "wal_mb": 4096, "delay_ms": 10.0, "compression": "lz4"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Method{TPE, Random} {
		o, err := New(s, Options{Seed: 7, Method: m, WarmStart: []Point{defaults, advised}})
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []Point{defaults, advised} {
			got := o.Suggest()
			if !slices.Equal(got, want) {
				t.Errorf("method %d: suggestion %d is %v, want warm-start point %v", m, i+1, got, want)
			}
			if err := o.Observe(got, float64(i), false); err != nil {
				t.Fatal(err)
			}
		}
		if slices.Equal(o.Suggest(), advised) {
			t.Errorf("method %d: a warm-start point is suggested again after the warm start", m)
		}
	}
}

func TestSameSeedSameSearch(t *testing.T) {
	s := quadraticSpace(t)
	trace := func(opts Options) []Point {
		o, err := New(s, opts)
		if err != nil {
			t.Fatal(err)
		}
		var pts []Point
		for i := range 25 {
			p := o.Suggest()
			pts = append(pts, p)
			if err := o.Observe(p, quadratic(s, p), i%7 == 3); err != nil {
				t.Fatal(err)
			}
		}
		return pts
	}
	for _, opts := range []Options{{Seed: 42}, {Seed: 42, Method: Random}, {Seed: 42, Projection: 2}} {
		a, b := trace(opts), trace(opts)
		for i := range a {
			if !slices.Equal(a[i], b[i]) {
				t.Fatalf("options %+v: suggestion %d differs between two runs with the same seed: %v vs %v", opts, i+1, a[i], b[i])
			}
		}
		opts.Seed++
		if c := trace(opts); slices.Equal(a[len(a)-1], c[len(c)-1]) && slices.Equal(a[0], c[0]) {
			t.Errorf("options %+v: another seed gives the same search", opts)
		}
	}
}

// A region where every evaluation fails (the server does not start) must
// be sampled less once the model has seen it fail: here the right third of
// Branin's first axis fails, and random search sends a third of its points
// there. The failing region holds one of Branin's three optima, so without
// the failures the search would be drawn into it.
func TestFailedRegionIsAvoided(t *testing.T) {
	s := braninSpace(t)
	fails := func(p Point) bool { return p[0] > 5 } // x1 in (5, 10]: a third of [-5, 10]
	const (
		seeds  = 30
		budget = 40
	)
	var modelPoints, modelFailures int
	for seed := range int64(seeds) {
		o, err := New(s, Options{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		for i := range budget {
			p := o.Suggest()
			failed := fails(p)
			if i >= DefaultStartup {
				modelPoints++
				if failed {
					modelFailures++
				}
			}
			if err := o.Observe(p, -branin(p), failed); err != nil {
				t.Fatal(err)
			}
		}
		if best, ok := o.Best(); !ok || fails(best.Point) {
			t.Fatalf("seed %d: Best returned a failed point or none: %+v %v", seed, best, ok)
		}
	}
	share := float64(modelFailures) / float64(modelPoints)
	t.Logf("after the start points, %.1f%% of TPE's suggestions fall in the failing third of the space", 100*share)
	// Measured: 3% with the model as it is, 8% without its
	// probability-of-success term, 35% if failures were ignored.
	if share > 0.06 {
		t.Errorf("TPE keeps sampling the failing region: %.1f%% of its suggestions, random would give 33%%", 100*share)
	}
}

func TestAllFailuresDoNotStopTheSearch(t *testing.T) {
	s := braninSpace(t)
	o, err := New(s, Options{Seed: 3, Startup: 2})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		p := o.Suggest()
		if err := s.check(p); err != nil {
			t.Fatal(err)
		}
		if err := o.Observe(p, math.NaN(), true); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := o.Best(); ok {
		t.Error("Best returned a point although every evaluation failed")
	}
	if got := o.Observations(); got != 5 {
		t.Errorf("Observations() = %d, want 5", got)
	}
}

func TestLogDimensionsAreUniformInLogSpace(t *testing.T) {
	s, err := NewSpace(Float("work_mem_kb", 64, 640000, true), Int("wal_mb", 10, 100000, true), Float("linear", 64, 640000, false))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Method{Random, TPE} {
		o, err := New(s, Options{Seed: 1, Method: m, Startup: 2000})
		if err != nil {
			t.Fatal(err)
		}
		// 4 decades each: a quarter of the points per decade in log
		// space; uniform in value would put 99.9% in the top decade.
		var decades [2][4]int
		var linearLow int
		const n = 2000
		for range n {
			p := o.Suggest()
			for i, low := range []float64{64, 10} {
				k := int(math.Floor(math.Log10(p[i] / low)))
				decades[i][min(k, 3)]++
			}
			if p[2] < 64000 {
				linearLow++
			}
		}
		for i, counts := range decades {
			for k, c := range counts {
				if share := float64(c) / n; share < 0.2 || share > 0.3 {
					t.Errorf("method %d, dimension %d: decade %d holds %.1f%% of the points, want about 25%%", m, i, k, 100*share)
				}
			}
		}
		if share := float64(linearLow) / n; share < 0.05 || share > 0.15 {
			t.Errorf("method %d: the linear dimension puts %.1f%% below a tenth of its range, want about 10%%", m, 100*share)
		}
	}
}

func TestRepeatedObservationsAreAveraged(t *testing.T) {
	s := braninSpace(t)
	o, err := New(s, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	a, b := Point{0, 5}, Point{1, 5}
	for _, obs := range []struct {
		p Point
		v float64
	}{{a, 10}, {a, 14}, {b, 11}, {a, 12}} {
		if err := o.Observe(obs.p, obs.v, false); err != nil {
			t.Fatal(err)
		}
	}
	top := o.TopK(5)
	if len(top) != 2 {
		t.Fatalf("TopK(5) gave %d points, want the 2 distinct ones", len(top))
	}
	if !slices.Equal(top[0].Point, a) || top[0].Mean != 12 || top[0].N != 3 {
		t.Errorf("best = %+v, want point %v with mean 12 over 3 observations", top[0], a)
	}
	if top[1].Mean != 11 || top[1].N != 1 {
		t.Errorf("second = %+v, want mean 11 over 1 observation", top[1])
	}
}

// One lucky run must not beat points that stayed good over repeats: the
// noise seen on repeated points shrinks a single observation's credit.
func TestBestDiscountsASingleLuckyRun(t *testing.T) {
	s := braninSpace(t)
	o, err := New(s, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	observe := func(p Point, values ...float64) {
		for _, v := range values {
			if err := o.Observe(p, v, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	steady, lucky := Point{1, 1}, Point{2, 2}
	observe(steady, 108, 92, 106, 94)    // mean 100, noise sd ~8
	observe(Point{3, 3}, 80, 96, 82, 94) // mean 88
	observe(Point{4, 4}, 85)
	observe(lucky, 103)           // one run, within the noise of 100
	for _, r := range o.TopK(4) { // plain means would pick the lucky point
		if r.Mean > 103 {
			t.Fatalf("test set-up: the lucky point should have the highest mean, got %+v", r)
		}
	}
	best, _ := o.Best()
	if !slices.Equal(best.Point, steady) {
		t.Errorf("Best = %+v, want the steady point %v over a single run of similar value", best, steady)
	}
	if best.Estimate > best.Mean+1e-9 || best.Estimate < 88 {
		t.Errorf("the steady point's estimate %g should be shrunk a little from its mean %g", best.Estimate, best.Mean)
	}
}

func TestFailedPointsAreNeverBest(t *testing.T) {
	s := braninSpace(t)
	o, err := New(s, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	flaky, plain := Point{1, 1}, Point{2, 2}
	for _, obs := range []struct {
		p      Point
		v      float64
		failed bool
	}{{flaky, 100, false}, {flaky, 0, true}, {plain, 10, false}} {
		if err := o.Observe(obs.p, obs.v, obs.failed); err != nil {
			t.Fatal(err)
		}
	}
	top := o.TopK(3)
	if len(top) != 1 || !slices.Equal(top[0].Point, plain) {
		t.Errorf("TopK = %+v, want only the point that never failed", top)
	}
}

func TestOptionsAndObservationsAreChecked(t *testing.T) {
	s := braninSpace(t)
	for _, opts := range []Options{
		{Method: Method(9)},
		{Startup: -1},
		{Gamma: 1},
		{Projection: -2},
		{WarmStart: []Point{{0}}},
		{WarmStart: []Point{{20, 1}}},
	} {
		if _, err := New(s, opts); err == nil {
			t.Errorf("New accepted options %+v", opts)
		}
	}
	o, err := New(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, obs := range []struct {
		p Point
		v float64
	}{{Point{0, 1, 2}, 1}, {Point{-6, 1}, 1}, {Point{0, 1}, math.NaN()}, {Point{0, 1}, math.Inf(1)}} {
		if err := o.Observe(obs.p, obs.v, false); err == nil {
			t.Errorf("Observe accepted %v with value %g", obs.p, obs.v)
		}
	}
	if o.Observations() != 0 {
		t.Errorf("rejected observations were recorded: %d", o.Observations())
	}
}

// A resumed search (a new optimizer fed the stored observations) goes on
// from where the stored one stopped: no start point is proposed again.
func TestResumedSearchDoesNotRepeatObservedStartPoints(t *testing.T) {
	s := quadraticSpace(t)
	warm, err := s.PointOf(map[string]any{"ratio": 0.5, "cost": 4.0, "buffers_mb": 128, "wal_mb": 1024, "delay_ms": 200.0, "compression": "off"})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Seed: 9, WarmStart: []Point{warm}}
	first, err := New(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	type trial struct {
		p Point
		v float64
	}
	var stored []trial
	for range 5 { // stopped in the middle of the start points
		p := first.Suggest()
		stored = append(stored, trial{p, quadratic(s, p)})
		if err := first.Observe(p, quadratic(s, p), false); err != nil {
			t.Fatal(err)
		}
	}
	resumed, err := New(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range stored {
		if err := resumed.Observe(tr.p, tr.v, false); err != nil {
			t.Fatal(err)
		}
	}
	for i := range DefaultStartup {
		p := resumed.Suggest()
		for _, tr := range stored {
			if slices.Equal(p, tr.p) {
				t.Fatalf("resumed suggestion %d repeats stored point %v", i+1, p)
			}
		}
		if want := first.Suggest(); i < DefaultStartup-5 && !slices.Equal(p, want) {
			t.Errorf("resumed suggestion %d = %v, want the next start point %v", i+1, p, want)
		}
		if err := resumed.Observe(p, quadratic(s, p), false); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFixedDimensionsKeepTheirValue(t *testing.T) {
	s, err := NewSpace(Float("x", 0, 1, false), Int("fixed_int", 7, 7, true), Float("fixed", 2.5, 2.5, false), Choice("only", "on"))
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{{Seed: 1}, {Seed: 1, Projection: 2}} {
		o, err := New(s, opts)
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			p := o.Suggest()
			if p[1] != 7 || p[2] != 2.5 || p[3] != 0 {
				t.Fatalf("options %+v: suggestion %v changes a fixed dimension", opts, p)
			}
			if err := o.Observe(p, -p[0], false); err != nil {
				t.Fatal(err)
			}
		}
	}
}
