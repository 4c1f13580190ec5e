package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// thisMachine is the noise of the shared 2-core test machine: per-second
// CV 9.4% in an 8 s TPC-B scale 2 run (4 clients, 2026-11-23, 1092–1451
// tps per second), rounded to 10%; AR(1) φ = 0.5 for the checkpoints and
// neighbours that slow several seconds in a row; a slow ±10% wander of the
// machine's speed across runs plus a small trend, as neighbours' builds do.
var thisMachine = machine{tps: 1200, seconds: 8, cv: 0.10, phi: 0.5, trend: 0.005, wave: 0.10}

// TestPairedCoverage: over 1000 simulated experiments per case, with drift
// across runs and AR(1) noise within them, the 95% interval covers the true
// effect in 92–98% of them (a binomial 95% band around 95% for 1000 draws
// is ±1.4%; the band is wider because the method is allowed to be a little
// conservative, not because it may miss).
func TestPairedCoverage(t *testing.T) {
	for _, pairs := range []int{2, 3, 6} {
		m := thisMachine
		m.effect = 0.10
		m.trend = 0.02 // steeper than usual: the neighbouring baselines must absorb it
		rng := rand.New(rand.NewPCG(11, uint64(pairs)))
		const n = 1000
		covered := 0
		for i := 0; i < n; i++ {
			b, s := m.experiment(rng, pairs)
			e := Paired(b, s, 0.95)
			if !e.Valid {
				t.Fatalf("%d pairs: invalid effect %+v", pairs, e)
			}
			if e.Low <= 100*m.effect && 100*m.effect <= e.High {
				covered++
			}
		}
		rate := float64(covered) / n
		t.Logf("%d pairs: coverage %.3f", pairs, rate)
		if rate < 0.92 || rate > 0.98 {
			t.Errorf("%d pairs: the 95%% interval covered the true effect in %.1f%% of %d experiments, want 92–98%%", pairs, 100*rate, n)
		}
	}
}

// TestPairedNeedsFewerPairsThanWelch: the pairs each method needs to call a
// +10% effect "better" in 80% of experiments at this machine's noise. On
// thisMachine (seed fixed) the paired method needs 8 pairs and Welch on run
// means 15: the drift across runs is noise to Welch and cancels in pairs.
func TestPairedNeedsFewerPairsThanWelch(t *testing.T) {
	m := thisMachine
	m.effect = 0.10
	counts := []int{2, 3, 4, 6, 8, 10, 12, 15, 20, 25, 30, 40}
	power := func(pairs int, paired bool) float64 {
		rng := rand.New(rand.NewPCG(21, uint64(pairs)))
		const n = 300
		hits := 0
		for i := 0; i < n; i++ {
			b, s := m.experiment(rng, pairs)
			if paired {
				if Paired(b, s, 0.95).Better() {
					hits++
				}
				continue
			}
			var base, step []float64
			for _, r := range b[:pairs] { // the old design: n baseline runs, n step runs
				base = append(base, r.Level)
			}
			for _, r := range s {
				step = append(step, r.Level)
			}
			if w := Welch(base, step, 0.95); w.Valid && w.Low > 0 {
				hits++
			}
		}
		return float64(hits) / n
	}
	needed := func(paired bool) int {
		for _, c := range counts {
			if power(c, paired) >= 0.8 {
				return c
			}
		}
		return math.MaxInt
	}
	p, w := needed(true), needed(false)
	t.Logf("pairs for 80%% power at +10%%: paired %d, Welch on run means %d", p, w)
	if p > 10 {
		t.Errorf("the paired method needs %d pairs, want at most 10", p)
	}
	if w < p*3/2 {
		t.Errorf("Welch needs %d pairs and the paired method %d: want the paired method to need far fewer", w, p)
	}
}

// TestSequentialStops: a large effect stops at the minimum of 2 pairs, no
// effect runs to the maximum (or proves itself smaller than min_effect), and
// the Bonferroni-corrected looks keep false positives on no effect at most
// 7% over 1000 experiments (the corrected rule is ≤ 5% in theory; 7% leaves
// room for the binomial spread of 1000 draws and the approximate interval).
func TestSequentialStops(t *testing.T) {
	seq := Sequential{MinPairs: 2, MaxPairs: 6, MinEffect: 3, Confidence: 0.95}
	if got := seq.LookLevel(); math.Abs(got-0.99) > 1e-12 {
		t.Fatalf("look level %v, want 0.99 (5 looks)", got)
	}
	run := func(m machine, rng *rand.Rand) (int, string) {
		b, s := m.experiment(rng, seq.MaxPairs)
		for k := 1; k <= seq.MaxPairs; k++ {
			if stop, why := seq.Stop(Paired(b[:k+1], s[:k], seq.LookLevel())); stop {
				return k, why
			}
		}
		t.Fatal("the rule never stopped")
		return 0, ""
	}
	big := thisMachine
	big.effect = 1.0 // synchronous_commit=off on this machine: about +100%
	// Mostly at 2 pairs; when the two pairs happen to disagree more than
	// their seconds say, the between-pair spread (1 degree of freedom)
	// carries the interval and a third or fourth pair settles it.
	rng := rand.New(rand.NewPCG(31, 1))
	atTwo := 0
	for i := 0; i < 40; i++ {
		k, why := run(big, rng)
		if why != StopExcludesZero || k > 4 {
			t.Errorf("+100%%: stopped after %d pairs (%s), want %s within 4", k, why, StopExcludesZero)
		}
		if k == 2 {
			atTwo++
		}
	}
	if atTwo < 30 {
		t.Errorf("+100%%: only %d of 40 experiments stopped at 2 pairs", atTwo)
	}
	zero := thisMachine
	rng = rand.New(rand.NewPCG(31, 2))
	const n = 1000
	falsePos, toMax := 0, 0
	for i := 0; i < n; i++ {
		k, why := run(zero, rng)
		switch why {
		case StopExcludesZero:
			falsePos++
		case StopMaxPairs:
			toMax++
			if k != seq.MaxPairs {
				t.Fatalf("stopped at max after %d pairs", k)
			}
		}
	}
	t.Logf("no effect: %d/%d false positives, %d ran to the maximum", falsePos, n, toMax)
	if float64(falsePos)/n > 0.07 {
		t.Errorf("no effect: %d false positives in %d experiments, want at most 7%%", falsePos, n)
	}
	if toMax < n*8/10 {
		t.Errorf("no effect: only %d of %d ran to max_repetitions (at ±10%% per-second noise a 3%% interval is out of reach)", toMax, n)
	}
	// A quiet machine and a tiny effect: the interval proves it small.
	quiet := machine{tps: 5000, seconds: 30, cv: 0.01, phi: 0.3, effect: 0.002}
	if k, why := run(quiet, rand.New(rand.NewPCG(31, 3))); why != StopWithinMinEffect || k >= seq.MaxPairs {
		t.Errorf("quiet machine, +0.2%%: stopped after %d pairs (%s), want %s before the maximum", k, why, StopWithinMinEffect)
	}
}

// TestMDEShrinks: the minimum detectable effect falls with more pairs and
// with less noise, and is about (1.96+0.84)·SE for many degrees of freedom.
func TestMDEShrinks(t *testing.T) {
	mde := func(m machine, pairs int) float64 {
		// The median over simulations: one experiment's MDE is itself noisy.
		rng := rand.New(rand.NewPCG(41, uint64(pairs)))
		var xs []float64
		for i := 0; i < 101; i++ {
			b, s := m.experiment(rng, pairs)
			xs = append(xs, Paired(b, s, 0.95).MDE)
		}
		return median(xs)
	}
	noisy, quiet := thisMachine, thisMachine
	quiet.cv = 0.03
	prev := math.Inf(1)
	for _, pairs := range []int{2, 3, 6, 10} {
		got := mde(noisy, pairs)
		if !(got < prev) {
			t.Errorf("MDE with %d pairs %.1f%%, not below %.1f%% with fewer", pairs, got, prev)
		}
		if q := mde(quiet, pairs); !(q < got) {
			t.Errorf("%d pairs: MDE %.1f%% with CV 3%%, not below %.1f%% with CV 10%%", pairs, q, got)
		}
		prev = got
	}
	if got, want := MDE(0.01, math.Inf(1), 0.95), 100*math.Expm1((1.959964+0.841621)*0.01); math.Abs(got-want) > 1e-3 {
		t.Errorf("MDE(se 0.01) = %v, want %v", got, want)
	}
}

// TestPairedDrift: a machine that slows steadily by 5% per run, no effect,
// no noise: the neighbouring baselines cancel the drift exactly, where
// comparing each step run with the run before would see −5%.
func TestPairedDrift(t *testing.T) {
	var b, s []Run
	for slot := 0; slot < 7; slot++ {
		r := Run{Level: 1000 * math.Exp(-0.05*float64(slot))}
		if slot%2 == 0 {
			b = append(b, r)
		} else {
			s = append(s, r)
		}
	}
	e := Paired(b, s, 0.95)
	if !e.Valid || math.Abs(e.Percent) > 1e-9 || e.Low > 0 || e.High < 0 {
		t.Errorf("linear drift: %+v, want 0%% in its interval", e)
	}
}

// TestPairedInvalid: what cannot give an interval says so.
func TestPairedInvalid(t *testing.T) {
	one := []Run{{Level: 1}}
	cases := map[string]struct{ b, s []Run }{
		"no pairs":               {nil, nil},
		"one pair, no samples":   {one, one},
		"baselines do not match": {append(one, one...), nil},
		"zero throughput":        {[]Run{{Level: 0}, {Level: 1}}, one},
		"too many baselines":     {[]Run{{Level: 1}, {Level: 1}, {Level: 1}}, one},
	}
	for name, c := range cases {
		if e := Paired(c.b, c.s, 0.95); e.Valid {
			t.Errorf("%s: valid %+v", name, e)
		}
	}
	// Without samples, the spread of the pairs alone gives the interval.
	e := Paired([]Run{{Level: 100}, {Level: 102}, {Level: 98}}, []Run{{Level: 110}, {Level: 111}}, 0.95)
	if !e.Valid || e.Noise != NoiseBetweenPair || e.DF != 1 || e.WithinSE != 0 {
		t.Errorf("between-pair only: %+v", e)
	}
}

func median(xs []float64) float64 {
	s := append([]float64{}, xs...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}

// TestSequentialPlan: the pairs planned for a noise are the fewest whose
// MDE (at the look's level) reaches min_effect, more for more noise or a
// smaller effect, and the plan says when the budget cannot reach it.
func TestSequentialPlan(t *testing.T) {
	rule := Sequential{MinPairs: 2, MaxPairs: 12, MinEffect: 10, Confidence: 0.95}
	n, ok := rule.Plan(0.03)
	if !ok || n < 2 || n > 12 {
		t.Fatalf("3%% run noise: %d pairs, ok %v", n, ok)
	}
	se := 0.03 * math.Sqrt(pairUp(make([]Run, n+1), make([]Run, n)).unitVarMean)
	if MDE(se, float64(n-1), rule.LookLevel()) > 10 {
		t.Errorf("planned %d pairs, whose MDE exceeds 10%%", n)
	}
	if n > 2 {
		se1 := 0.03 * math.Sqrt(pairUp(make([]Run, n), make([]Run, n-1)).unitVarMean)
		if MDE(se1, float64(n-2), rule.LookLevel()) <= 10 {
			t.Errorf("planned %d pairs, but %d already reach 10%%", n, n-1)
		}
	}
	if m, _ := rule.Plan(0.06); m <= n {
		t.Errorf("6%% noise plans %d pairs, 3%% plans %d", m, n)
	}
	if m, ok := rule.Plan(0.5); ok || m != 12 {
		t.Errorf("50%% noise: %d pairs, ok %v; want the budget (12) and not ok", m, ok)
	}
	if got := RunSD([]float64{100, 100 * math.Exp(0.1), 100}); math.Abs(got-0.1/math.Sqrt2) > 1e-12 { // Δ = ±0.1: σ = 0.1/√2
		t.Errorf("RunSD = %v, want 0.1/√2", got)
	}
}
