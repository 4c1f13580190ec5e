package stats

import (
	"math"
	"testing"
)

func TestWelch(t *testing.T) {
	cases := []struct {
		name      string
		a, b      []float64
		diff      float64
		low, high float64 // expected 95% interval
	}{
		// Equal sizes and variances give integer df: t(0.975, 4) = 2.776445, t(0.975, 6) = 2.446912.
		{"clear gain", []float64{1, 2, 3}, []float64{4, 5, 6}, 3, 3 - 2.776445*0.816497, 3 + 2.776445*0.816497},
		{"no change", []float64{10, 12, 14, 16}, []float64{16, 14, 12, 10}, 0, -2.446912 * 1.825742, 2.446912 * 1.825742},
	}
	for _, c := range cases {
		e := Welch(c.a, c.b, 0.95)
		if !e.Valid || math.Abs(e.Diff-c.diff) > 1e-9 || math.Abs(e.Low-c.low) > 1e-4 || math.Abs(e.High-c.high) > 1e-4 {
			t.Errorf("%s: got %+v, want diff %v in [%v, %v]", c.name, e, c.diff, c.low, c.high)
		}
	}
	if e := Welch([]float64{1}, []float64{2, 3}, 0.95); e.Valid {
		t.Error("one run on a side cannot give an interval")
	}
}
