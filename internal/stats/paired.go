package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// Run is one measured run of an arm.
type Run struct {
	// Level is the run's figure, e.g. transactions per second over the
	// whole run (or its p99 latency). It must be positive: effects are
	// ratios.
	Level float64
	// Samples are what the run measured along the way, e.g. the committed
	// transactions of each second; their spread gives the run's own
	// uncertainty. Optional: without them only the spread between pairs
	// counts.
	Samples []float64
}

// Which part of the noise carried an interval.
const (
	NoiseWithinRun   = "within-run"   // the runs' own per-second noise (block bootstrap)
	NoiseBetweenPair = "between-pair" // the spread of the pairs' ratios
)

// Effect is a step's effect against its baseline: the geometric mean of the
// paired ratios step/baseline, as a percentage, with its interval and the
// smallest effect the achieved noise could have shown.
type Effect struct {
	Pairs    int     `json:"pairs"`
	Level    float64 `json:"level"`    // confidence level of the interval, e.g. 0.95
	Percent  float64 `json:"percent"`  // step/baseline − 1, in %
	Low      float64 `json:"low_pct"`  // interval, in %
	High     float64 `json:"high_pct"` //
	MDE      float64 `json:"mde_pct"`  // minimum detectable effect (±%, at Level and 80% power)
	LogRatio float64 `json:"log_ratio"`
	SE       float64 `json:"se"` // standard error of LogRatio
	DF       float64 `json:"df"` // degrees of freedom of the t quantile
	// WithinSE and BetweenSE are the two estimates of SE (0: not available);
	// SE is the larger, named by Noise.
	WithinSE  float64 `json:"within_se"`
	BetweenSE float64 `json:"between_se"`
	WithinDF  float64 `json:"within_df,omitempty"` // degrees of freedom of WithinSE
	Noise     string  `json:"noise"`
	Valid     bool    `json:"valid"` // an interval could be computed
}

// Better says the whole interval lies above zero; Worse, below.
func (e Effect) Better() bool { return e.Valid && e.Low > 0 }

// Worse says the whole interval lies below zero.
func (e Effect) Worse() bool { return e.Valid && e.High < 0 }

// Paired estimates a step's effect from runs interleaved as
//
//	B1 S1 B2 S2 … Bn Sn [Bn+1]
//
// (len(baseline) is len(step) or len(step)+1). Each step run is paired with
// the baseline runs just before and after it (geometric mean; the last one
// only with the one before when there is no closing baseline): a machine
// whose speed drifts moves both sides of a pair alike, and a linear drift
// cancels exactly. The effect is the mean of the pairs' log ratios.
//
// Its standard error comes from two estimates of the same thing:
//
//   - within-run: each run's own uncertainty, from a circular block
//     bootstrap of its per-second samples (LogMeanVariance), propagated
//     through the pairing weights. It has many degrees of freedom even
//     with one or two pairs, but it misses whatever makes whole runs differ
//     more than their seconds do (a neighbour starting a build, a
//     checkpoint landing in one run only).
//   - between-pair: the spread of the pairs' log ratios. It includes the
//     within-run noise and the run-to-run part, but with n pairs it has
//     only n−1 degrees of freedom: useless at 2 pairs, good at 6.
//
// The interval uses the larger of the two. Adding them would count the
// within-run noise twice, since the between-pair spread already contains
// it; taking the larger is the random-effects estimate with equal weights
// (DerSimonian–Laird: the run-to-run variance is the between-pair excess
// over the within-run variance, or zero), so the within-run part carries
// the interval when pairs are few or agree, and the between-pair spread
// takes over as soon as runs differ more than their own noise says.
//
// The t quantile takes the degrees of freedom of the estimate that won,
// except that a between-pair variance no larger than chance explains
// (below the 95% χ² bound over the within-run one) keeps the within-run
// degrees of freedom: with 2 pairs its single degree of freedom (t = 12.7)
// would otherwise make half of all intervals useless for a spread that says
// nothing new. In simulations of 8 s runs with AR(1) φ = 0.5 this keeps
// 93–95% coverage for 2, 3 and 6 pairs (paired_test.go); with stronger
// autocorrelation (φ = 0.7) and 2 pairs it drops to about 89%: longer runs
// or more pairs fix that.
//
// level is the interval's confidence, e.g. 0.95. Runs with a non-positive
// Level make the effect invalid.
func Paired(baseline, step []Run, level float64) Effect {
	n := len(step)
	e := Effect{Pairs: n, Level: level}
	if n == 0 || (len(baseline) != n && len(baseline) != n+1) {
		return e
	}
	for _, r := range append(append([]Run{}, baseline...), step...) {
		if !(r.Level > 0) {
			return e
		}
	}
	p := pairUp(baseline, step)
	e.LogRatio = stat.Mean(p.d, nil)
	within, withinDF := p.within(baseline, step)
	between := p.between(e.LogRatio)
	switch {
	case math.IsNaN(within) && math.IsNaN(between):
		return e
	case math.IsNaN(between) || (!math.IsNaN(within) && within >= between):
		e.SE, e.DF, e.Noise = math.Sqrt(within), withinDF, NoiseWithinRun
	default:
		e.SE, e.DF, e.Noise = math.Sqrt(between), float64(n-1), NoiseBetweenPair
		if !math.IsNaN(within) && between < within*chiSquareQuantile95(n-1)/float64(n-1) {
			// The pairs spread a little more than the runs' own noise
			// says, but no more than chance explains at 95%: keep the
			// larger variance, and the within-run degrees of freedom
			// instead of the n−1 of a spread that agrees with them.
			e.DF = withinDF
		}
	}
	if !math.IsNaN(within) {
		e.WithinSE, e.WithinDF = math.Sqrt(within), min(withinDF, 1e6)
	}
	if !math.IsNaN(between) {
		e.BetweenSE = math.Sqrt(between)
	}
	t := StudentQuantile(1-(1-level)/2, e.DF)
	e.Percent = pct(e.LogRatio)
	e.Low, e.High = pct(e.LogRatio-t*e.SE), pct(e.LogRatio+t*e.SE)
	e.MDE = MDE(e.SE, e.DF, level)
	if math.IsInf(e.DF, 1) {
		e.DF = 1e6 // JSON has no infinity; the t quantile is the normal one by then
	}
	e.Valid = true
	return e
}

// pairs are the paired log ratios d_i of a design and each run's weight in
// their mean.
type pairs struct {
	d            []float64
	wBase, wStep []float64
	unitVarSum   float64 // Σ Var(d_i) for runs of unit variance
	unitVarMean  float64 // Var(mean d) for runs of unit variance: Σ w²
}

// pairUp pairs each step run with its neighbouring baseline runs.
func pairUp(baseline, step []Run) pairs {
	n := len(step)
	p := pairs{d: make([]float64, n), wBase: make([]float64, len(baseline)), wStep: make([]float64, n)}
	for i := range step {
		nb := []int{i}
		if i+1 < len(baseline) {
			nb = append(nb, i+1)
		}
		var base float64
		for _, j := range nb {
			base += math.Log(baseline[j].Level)
			p.wBase[j] -= 1 / float64(len(nb)*n)
		}
		p.d[i] = math.Log(step[i].Level) - base/float64(len(nb))
		p.wStep[i] = 1 / float64(n)
		p.unitVarSum += 1 + 1/float64(len(nb))
	}
	for _, w := range append(append([]float64{}, p.wBase...), p.wStep...) {
		p.unitVarMean += w * w
	}
	return p
}

// within is the within-run variance of the mean, Σ w_k² v_k, with
// Welch–Satterthwaite degrees of freedom (each run's variance rests on its
// number of blocks); NaN when a run has too few samples.
func (p pairs) within(baseline, step []Run) (v, df float64) {
	var sum, dfDen float64
	ok := true
	add := func(r Run, w float64, seed uint64) {
		v, blocks := LogMeanVariance(r.Samples, seed)
		if math.IsNaN(v) || blocks < 2 {
			ok = false
			return
		}
		a := w * w * v
		sum += a
		dfDen += a * a / float64(blocks-1)
	}
	for j, r := range baseline {
		add(r, p.wBase[j], uint64(2*j))
	}
	for i, r := range step {
		add(r, p.wStep[i], uint64(2*i+1))
	}
	if !ok {
		return math.NaN(), 0
	}
	if dfDen > 0 {
		return sum, sum * sum / dfDen
	}
	return sum, math.Inf(1)
}

// between is the spread of the d_i around their mean, scaled to Var(mean d);
// NaN with one pair. Adjacent pairs share a baseline run, so the d_i are
// positively correlated and their sample variance is not simply
// n·Var(mean d); the factor below is exact when every run has the same
// variance: E[s²] = (Σ Var(d_i) − n·Var(mean d)) / (n−1).
func (p pairs) between(mean float64) float64 {
	n := len(p.d)
	if n < 2 {
		return math.NaN()
	}
	var ss float64
	for _, x := range p.d {
		ss += (x - mean) * (x - mean)
	}
	s2 := ss / float64(n-1)
	expected := (p.unitVarSum - float64(n)*p.unitVarMean) / float64(n-1)
	return s2 * p.unitVarMean / expected
}

// MDE is the minimum detectable effect, in ±%: the smallest true effect that
// an interval at level would exclude zero for with 80% probability, given a
// standard error se on the log scale: (t_{1−α/2} + t_{0.8}) × se.
func MDE(se, df, level float64) float64 {
	return pct((StudentQuantile(1-(1-level)/2, df) + StudentQuantile(0.8, df)) * se)
}

// pct turns a log ratio into a percentage change.
func pct(logRatio float64) float64 { return 100 * math.Expm1(logRatio) }

// Method describes Paired for footnotes and reports.
func Method(level float64) string {
	return fmt.Sprintf("each step run is compared with the geometric mean of the baseline runs just before and after it; "+
		"the effect is the mean log ratio, shown as %%; its %.0f%% interval (Student t) uses the larger of two noise estimates: "+
		"within-run (circular block bootstrap of per-second samples, blocks of ⌈√n⌉ s, fixed seeds) and between-pair "+
		"(spread of the pairs' ratios, n−1 degrees of freedom when it exceeds the within-run noise by more than chance); MDE = (t_{1−α/2} + t_{0.8}) × standard error: "+
		"the smallest effect seen with 80%% probability", 100*level)
}

// chiSquareQuantile95 is the 95% quantile of χ² with k degrees of freedom
// (Wilson–Hilferty; within 2% of tables for k ≥ 1).
func chiSquareQuantile95(k int) float64 {
	const z = 1.6448536269514722
	f := float64(k)
	c := 2 / (9 * f)
	q := 1 - c + z*math.Sqrt(c)
	return f * q * q * q
}
