package stats

import (
	"math"
	"testing"
)

// TestStudentQuantile checks the t quantiles against published tables.
func TestStudentQuantile(t *testing.T) {
	cases := []struct{ p, df, want float64 }{
		{0.975, 1, 12.7062},
		{0.975, 4, 2.7764},
		{0.975, 10, 2.2281},
		{0.95, 3, 2.3534},
		{0.995, 30, 2.7500},
		{0.975, 1000, 1.9623},
		{0.8, 5, 0.9195},
		{0.975, math.Inf(1), 1.9600},
	}
	for _, c := range cases {
		if got := StudentQuantile(c.p, c.df); math.Abs(got-c.want) > 1e-3 {
			t.Errorf("t(%v, %v) = %v, want %v", c.p, c.df, got, c.want)
		}
	}
}
