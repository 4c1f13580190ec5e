package switchback

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestOrderBalancesRandomisedPairs: every pair is A B or B A, the two orders
// come as often (±1), and the seed changes which pairs get which.
func TestOrderBalancesRandomisedPairs(t *testing.T) {
	for pairs := 2; pairs <= 13; pairs++ {
		o := Design{Pairs: pairs, Seed: 7}.Order()
		if len(o) != 2*pairs {
			t.Fatalf("%d pairs: %d blocks", pairs, len(o))
		}
		bFirst := 0
		for k := 0; k < pairs; k++ {
			if o[2*k] == o[2*k+1] {
				t.Fatalf("pair %d is %s %s", k, o[2*k], o[2*k+1])
			}
			if o[2*k] == B {
				bFirst++
			}
		}
		if d := 2*bFirst - pairs; d < -1 || d > 1 {
			t.Errorf("%d pairs: %d start with B", pairs, bFirst)
		}
	}
	a, b := Design{Pairs: 12, Seed: 1}.Order(), Design{Pairs: 12, Seed: 2}.Order()
	same := true
	for i := range a {
		same = same && a[i] == b[i]
	}
	if same {
		t.Error("seeds 1 and 2 gave the same order")
	}
}

// TestBlocksDropTheSettlingGap: a block keeps only the whole seconds that
// start Settle after its switch and end before the next one.
func TestBlocksDropTheSettlingGap(t *testing.T) {
	start := time.Unix(1000, 0)
	per := make([]float64, 30)
	for i := range per {
		per[i] = float64(i)
	}
	// Switches 10.3 s and 20.25 s into the run (the reload's own delay).
	sw := []Switch{{Arm: A, Block: 0, At: start}, {Arm: B, Block: 1, At: start.Add(10300 * time.Millisecond)},
		{Arm: B, Block: 2, At: start.Add(20250 * time.Millisecond)}}
	bl := Blocks(start, per, sw, 2*time.Second)
	// Block 1: seconds 2..9 (0 and 1 settle); block 2: from 12.3 s, seconds
	// 13..19; block 3: from 22.25 s, seconds 23..29.
	want := []struct{ first, n int }{{2, 8}, {13, 7}, {23, 7}}
	for i, w := range want {
		if bl[i].FirstSec != w.first || bl[i].Seconds != w.n {
			t.Errorf("block %d: seconds %d..+%d, want %d..+%d", i, bl[i].FirstSec, bl[i].Seconds, w.first, w.n)
		}
	}
	if bl[0].Pair != 0 || bl[1].Pair != 0 || bl[2].Pair != 1 {
		t.Errorf("pairs %d %d %d", bl[0].Pair, bl[1].Pair, bl[2].Pair)
	}
	if math.Abs(bl[0].PerSec-5.5) > 1e-9 {
		t.Errorf("block 1 mean %v, want 5.5", bl[0].PerSec)
	}
}

// simulate is a switchback run on a machine whose throughput drifts
// linearly by drift (a fraction, over the whole run) under per-second noise
// of cv, with B effect times A's level. The reload returns 40 ms after each
// boundary and the first second after a switch still runs at the old arm's
// level (what the settling gap is for).
func simulate(seed uint64, d Design, effect, drift, cv float64) []Block {
	r := rand.New(rand.NewPCG(seed, 99))
	order := d.Order()
	blockSec := int(d.Block / time.Second)
	start := time.Unix(0, 0)
	n := len(order) * blockSec
	per := make([]float64, n)
	level := func(arm string) float64 {
		if arm == B {
			return 1 + effect
		}
		return 1
	}
	for i := range per {
		k := i / blockSec
		arm := order[k]
		if i%blockSec == 0 && k > 0 {
			arm = order[k-1]
		}
		base := 3000 * (1 + drift*float64(i)/float64(n))
		per[i] = base * level(arm) * math.Exp(cv*r.NormFloat64())
	}
	sw := []Switch{{Arm: order[0], Block: 0, At: start}}
	for k := 1; k < len(order); k++ {
		sw = append(sw, Switch{Arm: order[k], Block: k, At: start.Add(time.Duration(k)*d.Block + 40*time.Millisecond)})
	}
	return Blocks(start, per, sw, d.Settle)
}

// TestEstimateRecoversAStepUnderDrift: on a machine losing 30% of its speed
// over the run, with 15% per-second noise, a +3% step is recovered within
// its interval in at least 90% of 300 simulated runs (95% intervals), and a
// no-op is called better or worse in at most 8% of them; the drift widens
// the interval by less than a tenth (it cancels within the pairs).
func TestEstimateRecoversAStepUnderDrift(t *testing.T) {
	d := Design{Block: 10 * time.Second, Settle: 2 * time.Second, Pairs: 30}
	const runs = 300
	covered, falseAlarms := 0, 0
	var width, steady float64
	for s := range uint64(runs) {
		d.Seed = s
		e := Estimate(simulate(s, d, 0.03, -0.30, 0.15), 0.95)
		q := Estimate(simulate(s, d, 0.03, 0, 0.15), 0.95)
		steady += (q.High - q.Low) / 2
		if !e.Valid || e.Pairs != d.Pairs {
			t.Fatalf("seed %d: %+v", s, e)
		}
		if e.Low <= 3 && 3 <= e.High {
			covered++
		}
		width += (e.High - e.Low) / 2
		if n := Estimate(simulate(s+1000, d, 0, -0.30, 0.15), 0.95); n.Better() || n.Worse() {
			falseAlarms++
		}
	}
	t.Logf("+3%% step: covered %d/%d, mean half-width ±%.2f%% (±%.2f%% without drift); no-op significant %d/%d", covered, runs, width/runs, steady/runs, falseAlarms, runs)
	if covered < runs*90/100 {
		t.Errorf("+3%% covered in %d of %d runs, want at least 90%%", covered, runs)
	}
	if falseAlarms > runs*8/100 {
		t.Errorf("a no-op was significant in %d of %d runs, want at most 8%%", falseAlarms, runs)
	}
	// The drift cancels: it widens the interval by less than a tenth.
	if width > 1.1*steady {
		t.Errorf("mean half-width ±%.2f%% under drift, ±%.2f%% without: the drift does not cancel", width/runs, steady/runs)
	}
}

// TestFitPrefersPairsToLongBlocks: a run's time goes to at least 8 pairs
// while blocks of 4 s allow, and to 10 s blocks when there is time.
func TestFitPrefersPairsToLongBlocks(t *testing.T) {
	for _, c := range []struct {
		total, block, settle time.Duration
		pairs                int
	}{
		{40 * time.Second, 4 * time.Second, time.Second, 5},
		{80 * time.Second, 5 * time.Second, time.Second, 8},
		{240 * time.Second, 10 * time.Second, 2 * time.Second, 12},
	} {
		d := Fit(c.total)
		if d.Block != c.block || d.Settle != c.settle || d.Pairs != c.pairs || d.Check() != nil {
			t.Errorf("Fit(%s) = %+v, want %d pairs of %s blocks, %s settling", c.total, d, c.pairs, c.block, c.settle)
		}
	}
}

// neighbourBlocks simulates a switchback run's blocks directly: pairs in a
// balanced random order, each block's level moved by beta × c, c ~ N(0, 1)
// per block (a neighbour's load, recorded as the block's "neighbour"
// covariate with a little measurement noise), a slow wave of ±5% over the
// run, 2% noise per block and B effect times A's level.
func neighbourBlocks(r *rand.Rand, pairs int, effect, beta float64) []Block {
	order := Design{Pairs: pairs, Seed: r.Uint64()}.Order()
	phase := r.Float64() * 2 * math.Pi
	var out []Block
	for k, arm := range order {
		c := r.NormFloat64()
		l := math.Log(3000) + 0.05*math.Sin(phase+float64(k)/7) + beta*c + 0.02*r.NormFloat64()
		if arm == B {
			l += math.Log1p(effect)
		}
		out = append(out, Block{Arm: arm, Pair: k / 2, Seconds: 8, PerSec: math.Exp(l),
			Covariates: map[string]float64{"neighbour": c + 0.1*r.NormFloat64()}})
	}
	return out
}

// TestEstimateAdjustedForANeighbour: over 400 simulated switchback runs of
// 20 pairs, a neighbour that moves blocks by ±6% (sd), recorded per block,
// is adjusted for: the interval narrows by more than half and still covers
// the true +3% in at least 92% of runs; a covariate that explains nothing
// (beta 0) keeps coverage at 92% or more and widens the interval by at most
// 10%.
func TestEstimateAdjustedForANeighbour(t *testing.T) {
	for _, beta := range []float64{0.06, 0} {
		r := rand.New(rand.NewPCG(29, uint64(100*beta)))
		const runs = 400
		var covered, coveredAdj, used int
		var width, widthAdj float64
		for range runs {
			u, a := EstimateAdjusted(neighbourBlocks(r, 20, 0.03, beta), 0.95, Throughput, []string{"neighbour"})
			if !u.Valid || !a.Effect.Valid {
				t.Fatalf("beta %v: %+v, %+v", beta, u, a)
			}
			used += len(a.Used) // left out by chance in about 0.1% (the step-moves-it test at 99.9%)
			if u.Low <= 3 && 3 <= u.High {
				covered++
			}
			if a.Effect.Low <= 3 && 3 <= a.Effect.High {
				coveredAdj++
			}
			width += u.High - u.Low
			widthAdj += a.Effect.High - a.Effect.Low
		}
		t.Logf("beta %v: used in %d, coverage %d → %d of %d, mean width %.2f%% → %.2f%%", beta, used, covered, coveredAdj, runs, width/runs, widthAdj/runs)
		if used < runs*99/100 {
			t.Errorf("beta %v: the covariate was used in %d of %d runs", beta, used, runs)
		}
		if coveredAdj < runs*92/100 {
			t.Errorf("beta %v: the adjusted interval covered +3%% in %d of %d runs", beta, coveredAdj, runs)
		}
		if beta > 0 && widthAdj > 0.5*width {
			t.Errorf("beta %v: adjusted width %.2f%%, unadjusted %.2f%%: want less than half", beta, widthAdj/runs, width/runs)
		}
		if beta == 0 && widthAdj > 1.1*width {
			t.Errorf("a useless covariate widened the interval from %.2f%% to %.2f%%", width/runs, widthAdj/runs)
		}
	}
}
