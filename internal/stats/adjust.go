package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Regression adjustment for covariates (issue 29 point 2), CUPED's idea on
// paired data. The model, per pair i of a step (n pairs):
//
//	d_i = δ + Σ_j β_j x_ij + ε_i
//
// d_i is the pair's log ratio step/baseline (as Paired forms it), x_ij the
// pair's difference in covariate j (the step run's value less its
// neighbouring baseline runs' mean, weighted as d_i is; for a switchback
// pair, the B block's less the A block's), fitted by least squares with an
// intercept. δ, the intercept, is the effect the step would have shown had
// the covariates been the same in both arms: the part of the pairs' spread
// that the neighbours, the CPU's speed or the page cache explain is taken
// out of the noise, and its interval is the intercept's (Student t, n − 1 −
// k degrees of freedom, k covariates; its variance the residuals' with the
// same correction for pairs that share a baseline run as Paired's
// between-pair estimate). Regressing the differences, not the levels, keeps
// the pairing: a drift that the pairs cancel needs no covariate.
//
// It is only sound for covariates the step does not cause. A covariate whose
// own paired difference is far from zero (t test, 99.9%) is an outcome of
// the step (a setting that writes less WAL per transaction), and adjusting
// for it would take the effect away: it is left out, and the reason said.
// The test is strict on purpose: a covariate left out because the arms
// differed in it by chance is the very imbalance the adjustment corrects
// (at 95% such chance drops cost the adjusted interval about 3 points of
// coverage in the simulations), while a step's own effect on a covariate
// is many standard errors. So is
// one that does not vary, one that repeats another (collinear), and any
// beyond what the pairs can carry: a covariate costs a degree of freedom,
// and with few pairs the fit would explain noise (at most one covariate per
// three pairs beyond the intercept and the design's own terms, and at least
// three residual degrees of freedom). Candidates are taken in the caller's
// order (a fixed priority, never by how much they explain: choosing by the
// fit would make the interval too narrow).
//
// The adjusted interval is never narrower than the runs' own per-second
// noise allows (the unadjusted effect's within-run part, when it has one):
// run-level covariates cannot explain the noise within a run; and, as in
// Paired, residuals no larger than chance explains over that noise keep the
// within-run degrees of freedom. In simulations (adjust_test.go) the
// adjusted interval covers the true effect as often as the unadjusted one
// (about 95%) and is a third narrower where a covariate explains the runs'
// differences; where it explains nothing it is about 10% wider (the
// intercept's variance grows by 1/(n−1) for the fitted slope, and t loses a
// degree of freedom).

// Covariate is one covariate's difference between the arms, per pair.
type Covariate struct {
	Name string
	Diff []float64
}

// Adjustment is an effect adjusted for covariates.
type Adjustment struct {
	// Effect is the adjusted effect; the unadjusted one when Used is empty.
	Effect Effect `json:"effect"`
	// Used are the covariates in the fit, in order, and Coef their
	// coefficients (log ratio per unit of the covariate's difference).
	Used []string  `json:"used"`
	Coef []float64 `json:"coef,omitempty"`
	// Left says why each other candidate was left out ("steal: did not vary").
	Left []string `json:"left_out,omitempty"`
}

// NoiseAdjusted names the residual spread of the regression as the
// interval's noise.
const NoiseAdjusted = "between-pair, adjusted"

// minResidualDF is the fewest residual degrees of freedom a fit may leave,
// and pairsPerCovariate the pairs each covariate needs: fewer, and the fit
// explains noise.
const (
	minResidualDF     = 3
	pairsPerCovariate = 3
)

// Adjust fits d on the design's own columns (fixed, e.g. a switchback
// pair's order as ±1; nil for separate runs) and the candidate covariates
// that pass the guards, and returns δ with its interval at unadjusted's
// level. inflate scales the residual variance of δ (Paired's correction
// for pairs sharing a baseline run: PairedInflation; 1 for independent
// pairs).
func Adjust(d []float64, fixed [][]float64, candidates []Covariate, unadjusted Effect, inflate float64) Adjustment {
	adj := Adjustment{Effect: unadjusted}
	n := len(d)
	p0 := 1 + len(fixed)
	allowed := min(n/pairsPerCovariate-p0, n-p0-minResidualDF)
	cols := append([][]float64{}, fixed...)
	for _, c := range candidates {
		why := ""
		switch {
		case len(c.Diff) != n || hasNaN(c.Diff):
			why = "not measured in every run"
		case !varies(c.Diff):
			why = "did not vary"
		case changedByStep(c.Diff):
			why = "the step changes it (an outcome of the step, not a covariate)"
		case collinear(c.Diff, cols):
			why = "repeats the covariates already used"
		case len(adj.Used) >= allowed:
			why = fmt.Sprintf("%d pairs allow %d covariates", n, max(0, allowed))
		}
		if why != "" {
			adj.Left = append(adj.Left, c.Name+": "+why)
			continue
		}
		adj.Used = append(adj.Used, c.Name)
		cols = append(cols, c.Diff)
	}
	if len(adj.Used) == 0 || !unadjusted.Valid {
		adj.Used = nil
		return adj
	}
	beta, v, df, ok := ols(d, cols)
	if !ok {
		adj.Left = append(adj.Left, "the fit failed (singular)")
		adj.Used = nil
		return adj
	}
	adj.Coef = beta[1+len(fixed):]
	adj.Effect = adjustedEffect(unadjusted, beta[0], v*inflate, df)
	return adj
}

// adjustedEffect is δ with its interval: the residual variance v (df), or
// the unadjusted effect's within-run variance when that is larger.
func adjustedEffect(u Effect, delta, v, df float64) Effect {
	e := Effect{Pairs: u.Pairs, Level: u.Level, LogRatio: delta, WithinSE: u.WithinSE, WithinDF: u.WithinDF, BetweenSE: math.Sqrt(v), Noise: NoiseAdjusted}
	e.SE, e.DF = math.Sqrt(v), df
	switch within := u.WithinSE * u.WithinSE; {
	case u.WithinSE > e.SE:
		e.SE, e.DF, e.Noise = u.WithinSE, u.WithinDF, NoiseWithinRun
	case u.WithinSE > 0 && v < within*chiSquareQuantile95(int(df))/df:
		// As in Paired: residuals no larger than chance explains over the
		// runs' own noise keep the within-run degrees of freedom.
		e.DF = u.WithinDF
	}
	t := StudentQuantile(1-(1-u.Level)/2, e.DF)
	e.Percent, e.Low, e.High = pct(delta), pct(delta-t*e.SE), pct(delta+t*e.SE)
	e.MDE = MDE(e.SE, e.DF, u.Level)
	e.Valid = !math.IsNaN(e.SE) && !math.IsInf(e.SE, 0)
	return e
}

// ols fits y on an intercept and cols; it returns the coefficients, the
// intercept's variance and the residual degrees of freedom.
func ols(y []float64, cols [][]float64) (beta []float64, v0, df float64, ok bool) {
	n, p := len(y), 1+len(cols)
	if n-p < 1 {
		return nil, 0, 0, false
	}
	x := mat.NewDense(n, p, nil)
	for i := range n {
		x.Set(i, 0, 1)
		for j, c := range cols {
			x.Set(i, j+1, c[i])
		}
	}
	var xtx mat.SymDense
	xtx.SymOuterK(1, x.T())
	var chol mat.Cholesky
	if !chol.Factorize(&xtx) {
		return nil, 0, 0, false
	}
	var xty, b mat.VecDense
	xty.MulVec(x.T(), mat.NewVecDense(n, y))
	if err := chol.SolveVecTo(&b, &xty); err != nil {
		return nil, 0, 0, false
	}
	var fitted mat.VecDense
	fitted.MulVec(x, &b)
	var rss float64
	for i := range n {
		r := y[i] - fitted.AtVec(i)
		rss += r * r
	}
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		return nil, 0, 0, false
	}
	df = float64(n - p)
	return mat.Col(nil, 0, &b), rss / df * inv.At(0, 0), df, true
}

// PairedInflation is the factor that turns the residual variance of pairs
// formed as Paired forms them (each step run against its neighbouring
// baseline runs, adjacent pairs sharing one) into the variance of their
// mean: exact when every run has the same variance (see pairs.between).
func PairedInflation(pairs, baselines int) float64 {
	if pairs < 2 {
		return 1
	}
	runs := make([]Run, baselines)
	steps := make([]Run, pairs)
	for i := range runs {
		runs[i].Level = 1
	}
	for i := range steps {
		steps[i].Level = 1
	}
	p := pairUp(runs, steps)
	expected := (p.unitVarSum - float64(pairs)*p.unitVarMean) / float64(pairs-1)
	return float64(pairs) * p.unitVarMean / expected
}

// PairDiffs is, per pair, the step run's value less the mean of its
// neighbouring baseline runs' (Paired's pairing, on any value of a run).
func PairDiffs(baseline, step []float64) []float64 {
	out := make([]float64, len(step))
	for i := range step {
		base, k := baseline[i], 1.0
		if i+1 < len(baseline) {
			base, k = base+baseline[i+1], 2
		}
		out[i] = step[i] - base/k
	}
	return out
}

// PairLogRatios is Paired's d_i: log(step) less the mean log of the
// neighbouring baseline runs.
func PairLogRatios(baseline, step []Run) []float64 {
	lb, ls := make([]float64, len(baseline)), make([]float64, len(step))
	for i, r := range baseline {
		lb[i] = math.Log(r.Level)
	}
	for i, r := range step {
		ls[i] = math.Log(r.Level)
	}
	return PairDiffs(lb, ls)
}

// AdjustPaired is Adjust for runs paired as Paired pairs them, given the
// unadjusted effect Paired returned for them.
func AdjustPaired(baseline, step []Run, candidates []Covariate, unadjusted Effect) Adjustment {
	if !unadjusted.Valid {
		return Adjustment{Effect: unadjusted}
	}
	return Adjust(PairLogRatios(baseline, step), nil, candidates, unadjusted, PairedInflation(len(step), len(baseline)))
}

func hasNaN(xs []float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return true
		}
	}
	return false
}

// varies says the values are not all the same (to rounding).
func varies(xs []float64) bool {
	_, sd := stat.MeanStdDev(xs, nil)
	return len(xs) > 1 && sd > 1e-9*(1+math.Abs(stat.Mean(xs, nil)))
}

// changedByStep says a one-sample t test at 99.9% finds the covariate's
// mean difference away from zero: the step moves it.
func changedByStep(diff []float64) bool {
	n := len(diff)
	if n < 2 {
		return false
	}
	m, sd := stat.MeanStdDev(diff, nil)
	se := sd / math.Sqrt(float64(n))
	return math.Abs(m) > StudentQuantile(0.9995, float64(n-1))*se
}

// collinear says c is (almost) a linear combination of an intercept and
// cols: less than 1% of its spread is left once they are fitted.
func collinear(c []float64, cols [][]float64) bool {
	m := stat.Mean(c, nil)
	var total float64
	for _, x := range c {
		total += (x - m) * (x - m)
	}
	if len(cols) == 0 {
		return total == 0
	}
	beta, _, _, ok := ols(c, cols)
	if !ok {
		return true
	}
	var rss float64
	for i, x := range c {
		f := beta[0]
		for j, col := range cols {
			f += beta[j+1] * col[i]
		}
		rss += (x - f) * (x - f)
	}
	return rss < 0.01*total
}
