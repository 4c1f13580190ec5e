package stats

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// WelchEffect is the difference of two means with its confidence interval.
type WelchEffect struct {
	Diff      float64 // mean(b) − mean(a)
	Low, High float64 // confidence interval of Diff
	DF        float64 // Welch–Satterthwaite degrees of freedom
	Valid     bool    // false when either side has fewer than two values
}

// Welch returns mean(b) − mean(a) with a two-sided interval at level from
// Welch's t-test on the values (e.g. run means), which does not assume equal
// variances. Experiments used it on run means before Paired; it is the
// reference Paired is measured against (see the power test), and what
// studies and sweeps fall back to when their runs cannot be paired.
func Welch(a, b []float64, level float64) WelchEffect {
	ma, sa := stat.MeanStdDev(a, nil)
	mb, sb := stat.MeanStdDev(b, nil)
	e := WelchEffect{Diff: mb - ma}
	if len(a) < 2 || len(b) < 2 {
		return e
	}
	va, vb := sa*sa/float64(len(a)), sb*sb/float64(len(b))
	se := math.Sqrt(va + vb)
	if se == 0 {
		e.Low, e.High, e.DF, e.Valid = e.Diff, e.Diff, float64(len(a)+len(b)-2), true
		return e
	}
	e.DF = (va + vb) * (va + vb) / (va*va/float64(len(a)-1) + vb*vb/float64(len(b)-1))
	t := StudentQuantile(1-(1-level)/2, e.DF)
	e.Low, e.High, e.Valid = e.Diff-t*se, e.Diff+t*se, true
	return e
}
