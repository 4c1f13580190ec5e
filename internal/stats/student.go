package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// StudentQuantile is the p-quantile of Student's t with df degrees of
// freedom. df may be fractional (Welch–Satterthwaite); +Inf gives the normal
// quantile.
func StudentQuantile(p, df float64) float64 {
	if math.IsInf(df, 1) {
		return distuv.UnitNormal.Quantile(p)
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}
