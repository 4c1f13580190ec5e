package tune

import "math"

// meanSD returns the mean and the sample standard deviation (n-1); the
// deviation is NaN for fewer than two values.
func meanSD(xs []float64) (float64, float64) {
	if len(xs) == 0 {
		return 0, math.NaN()
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	if len(xs) < 2 {
		return mean, math.NaN()
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// Effect is the difference of two means with its confidence interval.
type Effect struct {
	Diff    float64 `json:"diff"`     // mean(B) - mean(A)
	Low     float64 `json:"ci_low"`   // lower end of the confidence interval of Diff
	High    float64 `json:"ci_high"`  // upper end
	Percent float64 `json:"percent"`  // Diff relative to mean(A), in %
	PctLow  float64 `json:"pct_low"`  // interval ends relative to mean(A), in %
	PctHigh float64 `json:"pct_high"` //
	DF      float64 `json:"df"`       // Welch–Satterthwaite degrees of freedom
	Level   float64 `json:"level"`    // confidence level, e.g. 0.95
	Valid   bool    `json:"valid"`    // false when either side has fewer than two runs
}

// Welch returns mean(b) - mean(a) with a two-sided confidence interval at
// level from Welch's t-test, which does not assume equal variances: the runs
// of a changed setting often vary more or less than the baseline's.
func Welch(a, b []float64, level float64) Effect {
	ma, sa := meanSD(a)
	mb, sb := meanSD(b)
	e := Effect{Diff: mb - ma, Level: level}
	if ma != 0 {
		e.Percent = 100 * e.Diff / ma
	}
	if len(a) < 2 || len(b) < 2 {
		return e
	}
	va, vb := sa*sa/float64(len(a)), sb*sb/float64(len(b))
	se := math.Sqrt(va + vb)
	if se == 0 {
		e.Low, e.High, e.DF, e.Valid = e.Diff, e.Diff, float64(len(a)+len(b)-2), true
	} else {
		e.DF = (va + vb) * (va + vb) / (va*va/float64(len(a)-1) + vb*vb/float64(len(b)-1))
		t := studentQuantile(1-(1-level)/2, e.DF)
		e.Low, e.High, e.Valid = e.Diff-t*se, e.Diff+t*se, true
	}
	if ma != 0 {
		e.PctLow, e.PctHigh = 100*e.Low/ma, 100*e.High/ma
	}
	return e
}

// studentCDF is the CDF of Student's t with df degrees of freedom, through the
// regularized incomplete beta function.
func studentCDF(t, df float64) float64 {
	x := df / (df + t*t)
	p := 0.5 * regIncBeta(df/2, 0.5, x)
	if t > 0 {
		return 1 - p
	}
	return p
}

// studentQuantile inverts studentCDF by bisection (monotone, so this is exact
// to the tolerance and needs no tables).
func studentQuantile(p, df float64) float64 {
	lo, hi := -1e3, 1e3
	for i := 0; i < 200 && hi-lo > 1e-10; i++ {
		mid := (lo + hi) / 2
		if studentCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by the
// continued fraction of Numerical Recipes (betacf), using the symmetry
// relation where the fraction converges slowly.
func regIncBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const eps, tiny = 1e-14, 1e-300
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		aa := fm * (b - fm) * x / ((qam + 2*fm) * (a + 2*fm))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + 2*fm) * (qap + 2*fm))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}
