// Package sweep runs a workload at each value of one axis (clients), with
// repetitions, and finds the knee: the last value whose throughput gain over
// the value before it is still significant. The points run in randomised
// blocks (every value once per repetition, in a new order each time), so a
// machine's drift spreads over the whole curve instead of bending it.
package sweep

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/pgoltp/pgoltp/internal/stats"
)

// Report is a sweep as it is printed with --json and kept in the lab
// (reports/ID.json), which 'pgoltp report ID' renders.
type Report struct {
	ID       string        `json:"id"`
	Workload string        `json:"workload"`
	Scale    int           `json:"scale"`
	Duration time.Duration `json:"duration_ns"`
	Seed     uint64        `json:"seed"`
	Results  []Result      `json:"results"` // in the order they ran
	Analysis
	Interrupted bool `json:"interrupted,omitempty"`
}

// Point is one run of a sweep: a value of the axis, in one repetition.
type Point struct {
	Value int `json:"value"`
	Rep   int `json:"repetition"` // 1-based
}

// Order is the order the points run in: repetition after repetition, each
// a shuffle of the values drawn from seed.
func Order(values []int, repetitions int, seed uint64) []Point {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var out []Point
	for rep := 1; rep <= repetitions; rep++ {
		perm := rng.Perm(len(values))
		for _, i := range perm {
			out = append(out, Point{Value: values[i], Rep: rep})
		}
	}
	return out
}

// Result is what one point measured.
type Result struct {
	Point
	RunID string        `json:"run_id,omitempty"`
	TPS   float64       `json:"tps"`
	P99   time.Duration `json:"p99_ns"`
	Error string        `json:"error,omitempty"` // the run failed: left out of the analysis
}

// Level is one value of the axis over its repetitions; the intervals are
// 95% (Student's t over the repetitions; none with one).
type Level struct {
	Value       int     `json:"value"`
	N           int     `json:"n"`
	TPS         float64 `json:"tps"`
	TPSLow      float64 `json:"tps_low"`
	TPSHi       float64 `json:"tps_high"`
	P99ms       float64 `json:"p99_ms"`
	P99Low      float64 `json:"p99_low_ms"`
	P99Hi       float64 `json:"p99_high_ms"`
	Gain        float64 `json:"gain_per_unit"` // throughput gained per unit of the axis over the level before
	GainLo      float64 `json:"gain_low"`
	GainHi      float64 `json:"gain_high"`
	Significant bool    `json:"gain_significant"`      // the gain's interval is above 0
	GainMethod  string  `json:"gain_method,omitempty"` // GainPaired or GainWelch; none without an interval
}

// Analysis is a sweep's curve and its knee.
type Analysis struct {
	Axis   string  `json:"axis"`
	Levels []Level `json:"levels"`
	// Knee is the last value whose gain over the value before is
	// significant, scanning up from the first (0 when none could be said).
	Knee     int    `json:"knee,omitempty"`
	KneeNote string `json:"knee_note"`
}

// Analyze groups results by value and finds the knee.
func Analyze(axis string, results []Result) Analysis {
	by := map[int][]Result{}
	for _, r := range results {
		if r.Error == "" {
			by[r.Value] = append(by[r.Value], r)
		}
	}
	values := make([]int, 0, len(by))
	for v := range by {
		values = append(values, v)
	}
	sort.Ints(values)
	a := Analysis{Axis: axis}
	for _, v := range values {
		a.Levels = append(a.Levels, level(v, by[v]))
	}
	for i := 1; i < len(a.Levels); i++ {
		gain(&a.Levels[i], a.Levels[i-1], by[values[i]], by[values[i-1]])
	}
	a.Knee, a.KneeNote = knee(a.Levels)
	return a
}

// level is one value's means and intervals.
func level(v int, rs []Result) Level {
	tps := make([]float64, len(rs))
	p99 := make([]float64, len(rs))
	for i, r := range rs {
		tps[i], p99[i] = r.TPS, float64(r.P99)/float64(time.Millisecond)
	}
	l := Level{Value: v, N: len(rs)}
	l.TPS, l.TPSLow, l.TPSHi = interval(tps)
	l.P99ms, l.P99Low, l.P99Hi = interval(p99)
	return l
}

// interval is the mean of xs and its 95% interval (the mean twice for one
// sample: no interval).
func interval(xs []float64) (mean, lo, hi float64) {
	if len(xs) < 2 {
		m := stat.Mean(xs, nil)
		return m, m, m
	}
	m, sd := stat.MeanStdDev(xs, nil)
	h := stats.StudentQuantile(0.975, float64(len(xs)-1)) * sd / math.Sqrt(float64(len(xs)))
	return m, m - h, m + h
}

// gain is the throughput gained per unit of the axis from prev to l, with
// its 95% interval. The repetitions are blocks (every value once each):
// with two or more repetitions that ran both values, the gain is the mean
// of their differences, each taken within one repetition, so that what
// moves a whole repetition (the machine's drift between them) cancels;
// otherwise Welch's interval on the two means.
func gain(l *Level, prev Level, rs, prevRs []Result) {
	step := float64(l.Value - prev.Value)
	l.Gain = (l.TPS - prev.TPS) / step
	prevTPS := map[int]float64{}
	for _, r := range prevRs {
		prevTPS[r.Rep] = r.TPS
	}
	var diffs []float64
	for _, r := range rs {
		if p, ok := prevTPS[r.Rep]; ok {
			diffs = append(diffs, r.TPS-p)
		}
	}
	var diff, low, high float64
	switch {
	case len(diffs) >= 2:
		l.GainMethod = GainPaired
		m, sd := stat.MeanStdDev(diffs, nil)
		h := stats.StudentQuantile(0.975, float64(len(diffs)-1)) * sd / math.Sqrt(float64(len(diffs)))
		diff, low, high = m, m-h, m+h
	case len(rs) >= 2 && len(prevRs) >= 2:
		l.GainMethod = GainWelch
		w := stats.Welch(tpsOf(prevRs), tpsOf(rs), 0.95)
		diff, low, high = w.Diff, w.Low, w.High
	default:
		return
	}
	l.Gain, l.GainLo, l.GainHi = diff/step, low/step, high/step
	l.Significant = l.GainLo > 0
}

// How a level's gain was judged.
const (
	GainPaired = "paired by repetition"
	GainWelch  = "Welch"
)

func tpsOf(rs []Result) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.TPS
	}
	return out
}

// knee scans up from the first value while each gain is significant.
func knee(levels []Level) (int, string) {
	switch {
	case len(levels) < 2:
		return 0, "a knee needs two values or more"
	case levels[0].N < 2 || levels[1].N < 2:
		return 0, "a knee needs two repetitions or more of each value (--repetitions)"
	}
	k := levels[0].Value
	for _, l := range levels[1:] {
		if !l.Significant {
			return k, fmt.Sprintf("adding beyond %d gives no significant throughput (95%%)", k)
		}
		k = l.Value
	}
	return k, fmt.Sprintf("every step up to %d still gains significantly: the knee is at %d or beyond", k, k)
}
