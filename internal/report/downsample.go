package report

import "math"

// bucketed is a line thinned for drawing: equal-count buckets of
// consecutive points, each kept as its mean position and value plus the
// smallest and largest value in it, so that a spike a mean would flatten
// still shows as the envelope. The raw points stay in the store.
type bucketed struct {
	X, Mean, Min, Max []float64
	// Thinned says buckets hold more than one point (Min and Max differ
	// from Mean somewhere): only then is an envelope drawn.
	Thinned bool
}

// bucketize thins xs, ys to at most limit buckets. NaN and ±Inf values are
// gaps: they are left out of a bucket's statistics, and a bucket of gaps
// only is a gap (NaN) itself.
func bucketize(xs, ys []float64, limit int) bucketed {
	n := len(xs)
	if n <= limit || limit <= 0 {
		return bucketed{X: xs, Mean: ys, Min: ys, Max: ys}
	}
	size := int(math.Ceil(float64(n) / float64(limit)))
	buckets := (n + size - 1) / size
	b := bucketed{X: make([]float64, 0, buckets), Mean: make([]float64, 0, buckets),
		Min: make([]float64, 0, buckets), Max: make([]float64, 0, buckets), Thinned: size > 1}
	for i := 0; i < n; i += size {
		end := min(i+size, n)
		var sx, sy float64
		lo, hi, kept := math.Inf(1), math.Inf(-1), 0
		for j := i; j < end; j++ {
			sx += xs[j]
			y := ys[j]
			if math.IsNaN(y) || math.IsInf(y, 0) {
				continue
			}
			sy += y
			lo, hi = math.Min(lo, y), math.Max(hi, y)
			kept++
		}
		b.X = append(b.X, sx/float64(end-i))
		if kept == 0 {
			nan := math.NaN()
			b.Mean, b.Min, b.Max = append(b.Mean, nan), append(b.Min, nan), append(b.Max, nan)
			continue
		}
		b.Mean, b.Min, b.Max = append(b.Mean, sy/float64(kept)), append(b.Min, lo), append(b.Max, hi)
	}
	return b
}
