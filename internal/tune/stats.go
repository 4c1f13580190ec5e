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
