package workload

import "math"

// Tally is an input audit in numbers that add up: Count events among Of
// samples, shown as Scale×Count/Of (100 for a percentage, 1 for a mean)
// against [Low, High]. A group of parts sums Count and Of over the parts
// and judges the sum again, so its audits cover all parts exactly.
type Tally struct {
	Name      string
	Count, Of int64
	Scale     float64
	// Expected and SD (the standard deviation of one sample, on the shown
	// scale) decide whether a value outside the bounds is a failure or too
	// few samples to tell (Judge).
	Expected, SD, Low, High float64
	// Allow is a count that passes whatever the share (-1: none): "at most
	// 1%, or one" is High 1 with Allow 1.
	Allow int64
}

// Value is the tally as shown.
func (t Tally) Value() float64 {
	if t.Of == 0 {
		return 0
	}
	return t.Scale * float64(t.Count) / float64(t.Of)
}

// Judge is PASS within the bounds (or within Allow); outside them FAIL when
// the value is more than four standard errors from the expected one or the
// bounds are at least three standard errors wide; else SKIP (too few
// samples to tell), as is a tally without samples.
func (t Tally) Judge() string {
	if t.Of == 0 {
		return "SKIP"
	}
	v := t.Value()
	sigma := t.SD / math.Sqrt(float64(t.Of))
	switch {
	case v >= t.Low && v <= t.High, t.Allow >= 0 && t.Count <= t.Allow:
		return "PASS"
	case math.Abs(v-t.Expected) > 4*sigma:
		return "FAIL"
	case min(t.Expected-t.Low, t.High-t.Expected) >= 3*sigma:
		return "FAIL"
	}
	return "SKIP"
}
