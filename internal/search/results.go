package search

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// Result is what the optimizer knows about one distinct point.
type Result struct {
	Point Point
	// Mean is the mean objective of the point's observations.
	Mean float64
	// Estimate is Mean shrunk towards the mean of all points by how little
	// the point was measured compared with the noise (see ledger.ranked):
	// a single lucky run ranks below a point that stayed good over repeats.
	// It equals Mean until some point has been observed twice.
	Estimate float64
	// N is the number of observations.
	N int
}

type record struct {
	point    Point
	values   []float64 // successful observations
	failures int
}

func (r *record) mean() float64 { return stat.Mean(r.values, nil) }

// ledger keeps the observations per distinct point, in first-seen order.
type ledger struct {
	records      []*record
	byKey        map[string]*record
	observations int
}

func newLedger() ledger { return ledger{byKey: map[string]*record{}} }

func (l *ledger) add(p Point, value float64, failed bool) {
	l.observations++
	r, ok := l.byKey[p.key()]
	if !ok {
		r = &record{point: append(Point(nil), p...)}
		l.byKey[p.key()] = r
		l.records = append(l.records, r)
	}
	if failed {
		r.failures++
	} else {
		r.values = append(r.values, value)
	}
}

// ranked returns the points that never failed, by Estimate, best first
// (ties: more observations, higher Mean, then first seen). The estimate is empirical Bayes (the
// James-Stein idea): with noise variance s2 pooled from repeated points and
// variance t2 of the true values between points, a point measured n times
// is credited with
//
//	grand + (mean - grand) * t2 / (t2 + s2/n)
//
// so a mean from one run moves towards the grand mean in proportion to how
// noisy single runs are, and repeats earn a point trust.
func (l *ledger) ranked() []Result {
	var out []Result
	var means, invN []float64
	var within, dof float64
	for _, r := range l.records {
		if r.failures > 0 || len(r.values) == 0 {
			continue
		}
		m := r.mean()
		out = append(out, Result{Point: append(Point(nil), r.point...), Mean: m, Estimate: m, N: len(r.values)})
		means = append(means, m)
		invN = append(invN, 1/float64(len(r.values)))
		if n := len(r.values); n > 1 {
			within += stat.Variance(r.values, nil) * float64(n-1)
			dof += float64(n - 1)
		}
	}
	if dof > 0 && len(means) > 1 {
		s2 := within / dof
		grand := stat.Mean(means, nil)
		// Var(means) = t2 + s2 * mean(1/n); t2 cannot be negative.
		t2 := math.Max(stat.Variance(means, nil)-s2*stat.Mean(invN, nil), 0)
		for i := range out {
			if t2+s2 > 0 {
				out[i].Estimate = grand + (out[i].Mean-grand)*t2/(t2+s2*invN[i])
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Estimate != out[j].Estimate {
			return out[i].Estimate > out[j].Estimate
		}
		// No evidence of real differences (t2 = 0): the best-measured
		// point first, then the plain means.
		if out[i].N != out[j].N {
			return out[i].N > out[j].N
		}
		return out[i].Mean > out[j].Mean
	})
	return out
}
