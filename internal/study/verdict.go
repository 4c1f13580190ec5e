package study

import (
	"fmt"
	"io"
	"math"

	"github.com/pgoltp/pgoltp/internal/stats"
)

// Verdict is one arm's throughput against the first arm's (the baseline of
// a builds plan, the first major of a versions one): the change of the mean
// in percent with a 95% Welch interval, and what that says.
type Verdict struct {
	Arm     string  `json:"arm"`     // "build o3-native", "PG 18.1"
	Against string  `json:"against"` // the first arm
	Change  float64 `json:"change_pct"`
	Low     float64 `json:"low_pct"`
	High    float64 `json:"high_pct"`
	HasCI   bool    `json:"has_interval"` // two or more runs on each side
	Says    string  `json:"says"`         // faster, slower, no clear difference, or one run each
}

// verdicts compares every arm's throughput runs with the first arm's.
func verdicts(majors []Major, tps map[string][]float64) []Verdict {
	if len(majors) < 2 {
		return nil
	}
	base := tps[majors[0].Key()]
	var out []Verdict
	for _, m := range majors[1:] {
		out = append(out, welch(m.Label(), majors[0].Label(), base, tps[m.Key()]))
	}
	return out
}

// welch is b's mean against a's, in percent of a's, with Welch's interval
// of the difference of the means.
func welch(arm, against string, a, b []float64) Verdict {
	v := Verdict{Arm: arm, Against: against, Says: "one run each: no interval (give repetitions: 2 or more)"}
	ma, va := meanVar(a)
	mb, vb := meanVar(b)
	if len(a) == 0 || len(b) == 0 || ma == 0 {
		v.Says = "no throughput to compare"
		return v
	}
	v.Change = 100 * (mb - ma) / ma
	v.Low, v.High = v.Change, v.Change
	if len(a) < 2 || len(b) < 2 {
		return v
	}
	sa, sb := va/float64(len(a)), vb/float64(len(b))
	se := math.Sqrt(sa + sb)
	df := (sa + sb) * (sa + sb) / (sa*sa/float64(len(a)-1) + sb*sb/float64(len(b)-1))
	half := 0.0
	if se > 0 {
		half = stats.StudentQuantile(0.975, df) * se
	}
	v.Low, v.High, v.HasCI = 100*(mb-ma-half)/ma, 100*(mb-ma+half)/ma, true
	switch {
	case v.Low > 0:
		v.Says = "faster"
	case v.High < 0:
		v.Says = "slower"
	default:
		v.Says = "no clear difference"
	}
	return v
}

func meanVar(xs []float64) (mean, variance float64) {
	for _, x := range xs {
		mean += x
	}
	if len(xs) == 0 {
		return 0, 0
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		variance += (x - mean) * (x - mean)
	}
	if len(xs) > 1 {
		variance /= float64(len(xs) - 1)
	}
	return mean, variance
}

// writeVerdicts is the verdict lines of the comparison's text.
func writeVerdicts(w io.Writer, vs []Verdict) {
	if len(vs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nthroughput against "+vs[0].Against+" (95% Welch interval of the difference of means)")
	for _, v := range vs {
		if v.HasCI {
			fmt.Fprintf(w, "  %-22s %+.1f%% [%+.1f%%, %+.1f%%]: %s\n", v.Arm, v.Change, v.Low, v.High, v.Says)
		} else {
			fmt.Fprintf(w, "  %-22s %+.1f%%: %s\n", v.Arm, v.Change, v.Says)
		}
	}
}
