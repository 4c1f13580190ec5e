package experiment

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// meanSD returns the mean and the sample standard deviation (n-1); the
// deviation is NaN for fewer than two values.
func meanSD(xs []float64) (float64, float64) {
	switch len(xs) {
	case 0:
		return 0, math.NaN()
	case 1:
		return xs[0], math.NaN()
	}
	return stat.MeanStdDev(xs, nil)
}
