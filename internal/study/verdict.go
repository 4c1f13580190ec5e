package study

import (
	"fmt"
	"io"

	"gonum.org/v1/gonum/stat"

	"github.com/pgoltp/pgoltp/internal/stats"
)

// Verdict is one arm's throughput against the first arm's (the baseline of
// a builds plan, the first major of a versions one), in percent with a 95%
// interval, and what that says.
//
// The study runs the arms in the same order in every repetition and closes
// with one more run of the first arm, so each of an arm's runs lies between
// two runs of the first arm: the verdict pairs them (stats.Paired, the
// experiments' separate-runs design), and a machine whose speed drifts
// between repetitions moves both sides of each pair alike. On this machine
// kind, where single runs of one build moved ±15% in half an hour, four
// independent runs per build compared by their means resolved only ±21–27%
// (bench/RESULTS.md, "Builds"). Runs that cannot be paired (a repetition
// missing on one side) are compared by their means with Welch's interval.
type Verdict struct {
	Arm     string  `json:"arm"`     // "build o3-native", "PG 18.1"
	Against string  `json:"against"` // the first arm
	Method  string  `json:"method"`  // MethodPaired or MethodWelch
	Pairs   int     `json:"pairs,omitempty"`
	Change  float64 `json:"change_pct"`
	Low     float64 `json:"low_pct"`
	High    float64 `json:"high_pct"`
	MDE     float64 `json:"mde_pct,omitempty"` // paired: the smallest effect the noise let it see (80% power)
	HasCI   bool    `json:"has_interval"`      // two or more runs (pairs) on each side
	Says    string  `json:"says"`              // faster, slower, no clear difference, or one run each
}

// The methods of a verdict.
const (
	MethodPaired = "paired" // each run against the first arm's runs before and after it
	MethodWelch  = "Welch"  // the means of independent runs
)

// verdicts compares every arm's throughput runs with the first arm's.
func verdicts(majors []Major, runs map[string][]Run) []Verdict {
	if len(majors) < 2 {
		return nil
	}
	base := runs[majors[0].Key()]
	var out []Verdict
	for _, m := range majors[1:] {
		arm := runs[m.Key()]
		if pairable(base, arm) {
			out = append(out, paired(m.Label(), majors[0].Label(), base, arm))
		} else {
			out = append(out, welch(m.Label(), majors[0].Label(), tpsOf(base), tpsOf(arm)))
		}
	}
	return out
}

// pairable says arm's runs are repetitions 1..n, each run after the base's
// run of the same repetition and before its next one: base holds
// repetitions 1..n and, when the study closed with it, one more run.
func pairable(base, arm []Run) bool {
	n := len(arm)
	if n == 0 || (len(base) != n && len(base) != n+1) {
		return false
	}
	for i, r := range arm {
		if r.Repetition != i+1 || base[i].Repetition != i+1 {
			return false
		}
	}
	return len(base) == n || base[n].Repetition == n+1
}

// paired is arm's effect over base from the pairs (stats.Paired).
func paired(arm, against string, base, runs []Run) Verdict {
	e := stats.Paired(levels(base), levels(runs), 0.95)
	if len(runs) < 2 || !e.Valid {
		// One pair has only the runs' own per-second noise, which misses
		// what makes whole runs differ (a neighbour, a checkpoint): no
		// interval, as for one run each by their means.
		return welch(arm, against, tpsOf(base), tpsOf(runs))
	}
	v := Verdict{Arm: arm, Against: against, Method: MethodPaired, Pairs: len(runs)}
	v.Change, v.Low, v.High, v.MDE, v.HasCI = e.Percent, e.Low, e.High, e.MDE, true
	v.Says = says(e.Low, e.High)
	return v
}

// levels are the runs' throughput with their per-second samples.
func levels(runs []Run) []stats.Run {
	out := make([]stats.Run, len(runs))
	for i, r := range runs {
		out[i] = stats.Run{Level: r.TPS, Samples: r.PerSecond}
	}
	return out
}

func tpsOf(runs []Run) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = r.TPS
	}
	return out
}

// welch is b's mean against a's, in percent of a's, with Welch's interval
// of the difference of the means (stats.Welch).
func welch(arm, against string, a, b []float64) Verdict {
	v := Verdict{Arm: arm, Against: against, Method: MethodWelch, Says: "one run each: no interval (give repetitions: 2 or more)"}
	var ma float64
	if len(a) > 0 {
		ma = stat.Mean(a, nil)
	}
	if len(b) == 0 || ma == 0 {
		v.Says = "no throughput to compare"
		return v
	}
	pct := func(x float64) float64 { return 100 * x / ma }
	w := stats.Welch(a, b, 0.95)
	v.Change = pct(w.Diff)
	v.Low, v.High = v.Change, v.Change
	if !w.Valid {
		return v
	}
	v.Low, v.High, v.HasCI = pct(w.Low), pct(w.High), true
	v.Says = says(v.Low, v.High)
	return v
}

// says is what an interval says.
func says(low, high float64) string {
	switch {
	case low > 0:
		return "faster"
	case high < 0:
		return "slower"
	}
	return "no clear difference"
}

// writeVerdicts is the verdict lines of the comparison's text, each with
// how it was judged.
func writeVerdicts(w io.Writer, vs []Verdict) {
	if len(vs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nthroughput against "+vs[0].Against+" (95% interval)")
	for _, v := range vs {
		how := "Welch, difference of the means"
		if v.Method == MethodPaired {
			how = fmt.Sprintf("paired, %d pairs, each run against %s's before and after it", v.Pairs, v.Against)
			if v.HasCI {
				how += fmt.Sprintf("; MDE ±%.1f%%", v.MDE)
			}
		}
		if v.HasCI {
			fmt.Fprintf(w, "  %-22s %+.1f%% [%+.1f%%, %+.1f%%]: %s (%s)\n", v.Arm, v.Change, v.Low, v.High, v.Says, how)
		} else {
			fmt.Fprintf(w, "  %-22s %+.1f%%: %s (%s)\n", v.Arm, v.Change, v.Says, how)
		}
	}
}
