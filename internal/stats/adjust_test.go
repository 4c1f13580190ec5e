package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// withCovariate simulates B1 S1 … Sn Bn+1 on m where each run is also
// shifted by a neighbour: beta × c on the log scale, c ~ N(0, 1) per run,
// which the run records as its covariate (c, plus a little measurement
// noise). beta 0 makes c pure noise.
func (m machine) withCovariate(rng *rand.Rand, pairs int, beta float64) (baseline, step []Run, cb, cs []float64) {
	phase := rng.Float64() * 2 * math.Pi
	for slot := 0; slot < 2*pairs+1; slot++ {
		c := rng.NormFloat64()
		level := math.Log(m.tps) + m.trend*float64(slot) + m.wave*math.Sin(phase+2*math.Pi*float64(slot)/11) + beta*c
		seen := c + 0.1*rng.NormFloat64()
		if slot%2 == 1 {
			step = append(step, m.run(rng, level+math.Log1p(m.effect)))
			cs = append(cs, seen)
		} else {
			baseline = append(baseline, m.run(rng, level))
			cb = append(cb, seen)
		}
	}
	return baseline, step, cb, cs
}

// adjustSim runs n simulated experiments of pairs pairs and returns how
// often each interval covered the true effect and their median widths.
func adjustSim(t *testing.T, beta float64, pairs, n int) (covered, coveredAdj, width, widthAdj float64) {
	m := thisMachine
	m.effect = 0.05
	rng := rand.New(rand.NewPCG(29, uint64(1000*beta)))
	var ws, wa []float64
	truth := 100 * m.effect
	for range n {
		b, s, cb, cs := m.withCovariate(rng, pairs, beta)
		u := Paired(b, s, 0.95)
		a := AdjustPaired(b, s, []Covariate{{Name: "neighbour", Diff: PairDiffs(cb, cs)}}, u)
		if !u.Valid || !a.Effect.Valid {
			t.Fatalf("invalid: %+v %+v", u, a)
		}
		if u.Low <= truth && truth <= u.High {
			covered++
		}
		if a.Effect.Low <= truth && truth <= a.Effect.High {
			coveredAdj++
		}
		ws, wa = append(ws, u.High-u.Low), append(wa, a.Effect.High-a.Effect.Low)
	}
	slices.Sort(ws)
	slices.Sort(wa)
	return covered / float64(n), coveredAdj / float64(n), ws[n/2], wa[n/2]
}

// TestAdjustDrift: a neighbour that moves whole runs by ±8% (sd), recorded
// as a covariate, is the noise that pairs cannot cancel; adjusting for it
// narrows the interval by more than a third and the interval still covers
// the true +5% in at least 92% of 1000 simulated experiments of 10 pairs.
func TestAdjustDrift(t *testing.T) {
	cov, covAdj, w, wAdj := adjustSim(t, 0.08, 10, 1000)
	t.Logf("coverage %.3f → %.3f, median width %.1f%% → %.1f%%", cov, covAdj, w, wAdj)
	if covAdj < 0.92 {
		t.Errorf("the adjusted interval covered the true effect in %.1f%% of experiments, want ≥ 92%%", 100*covAdj)
	}
	if wAdj > 0.67*w {
		t.Errorf("median width %.1f%% adjusted against %.1f%%: want at most two thirds", wAdj, w)
	}
}

// TestAdjustNoiseCovariate: a covariate that explains nothing does no harm:
// coverage stays at least 92% and the median interval at most 15% wider
// (the fitted slope and the degree of freedom it costs: about 10% in this simulation).
func TestAdjustNoiseCovariate(t *testing.T) {
	cov, covAdj, w, wAdj := adjustSim(t, 0, 10, 1000)
	t.Logf("coverage %.3f → %.3f, median width %.1f%% → %.1f%%", cov, covAdj, w, wAdj)
	if covAdj < 0.92 {
		t.Errorf("the adjusted interval covered the true effect in %.1f%% of experiments, want ≥ 92%%", 100*covAdj)
	}
	if wAdj > 1.15*w {
		t.Errorf("median width %.1f%% adjusted against %.1f%%: a useless covariate widened it by more than 15%%", wAdj, w)
	}
}

// TestAdjustGuards: few pairs take no covariate (and say why), a covariate
// the step moves is left out, as are a constant and a repeated one.
func TestAdjustGuards(t *testing.T) {
	m := thisMachine
	m.effect = 0.05
	rng := rand.New(rand.NewPCG(3, 4))
	b, s, cb, cs := m.withCovariate(rng, 4, 0.08)
	u := Paired(b, s, 0.95)
	a := AdjustPaired(b, s, []Covariate{{Name: "neighbour", Diff: PairDiffs(cb, cs)}}, u)
	if len(a.Used) != 0 || a.Effect != u || len(a.Left) != 1 || a.Left[0] != "neighbour: 4 pairs allow 0 covariates" {
		t.Errorf("4 pairs: used %v, left %q, effect %+v (unadjusted %+v)", a.Used, a.Left, a.Effect, u)
	}

	b, s, cb, cs = m.withCovariate(rng, 12, 0.08)
	u = Paired(b, s, 0.95)
	diff := PairDiffs(cb, cs)
	moved := make([]float64, len(diff))
	for i := range diff {
		moved[i] = diff[i] + 5 // the step raised it
	}
	a = AdjustPaired(b, s, []Covariate{
		{Name: "flat", Diff: make([]float64, len(diff))},
		{Name: "moved", Diff: moved},
		{Name: "neighbour", Diff: diff},
		{Name: "again", Diff: diff},
	}, u)
	want := []string{"flat: did not vary", "moved: the step changes it (an outcome of the step, not a covariate)", "again: repeats the covariates already used"}
	if !slices.Equal(a.Used, []string{"neighbour"}) || !slices.Equal(a.Left, want) || len(a.Coef) != 1 {
		t.Errorf("used %v (coef %v), left %q; want [neighbour], %q", a.Used, a.Coef, a.Left, want)
	}
	if math.Abs(a.Coef[0]-0.08) > 0.04 {
		t.Errorf("coefficient %.3f, want about 0.08", a.Coef[0])
	}
}

// TestPairedInflation matches Paired's own between-pair scaling.
func TestPairedInflation(t *testing.T) {
	b := []Run{{Level: 100}, {Level: 103}, {Level: 97}, {Level: 101}}
	s := []Run{{Level: 110}, {Level: 104}, {Level: 108}}
	e := Paired(b, s, 0.95)
	d := PairLogRatios(b, s)
	var ss float64
	mean := (d[0] + d[1] + d[2]) / 3
	for _, x := range d {
		ss += (x - mean) * (x - mean)
	}
	naive := ss / 2 / 3 // s²/n
	if got := naive * PairedInflation(3, 4); math.Abs(got-e.BetweenSE*e.BetweenSE) > 1e-12 {
		t.Errorf("inflated %.3g, Paired's between-pair variance %.3g", got, e.BetweenSE*e.BetweenSE)
	}
}
