package sweep

import (
	"fmt"
	"io"
)

// WriteText writes the curve as a table, then the knee.
func (a Analysis) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%8s  %3s  %28s  %28s  %s\n", a.Axis, "n", "throughput (tps, 95%)", "p99 latency (ms, 95%)", "gain per unit")
	for _, l := range a.Levels {
		gain := ""
		if l.GainLo != 0 || l.GainHi != 0 {
			mark := "not significant"
			if l.Significant {
				mark = "significant"
			}
			gain = fmt.Sprintf("%+.1f (%+.1f .. %+.1f) %s", l.Gain, l.GainLo, l.GainHi, mark)
		} else if l != a.Levels[0] {
			gain = fmt.Sprintf("%+.1f", l.Gain)
		}
		fmt.Fprintf(w, "%8d  %3d  %9.1f (%7.1f .. %7.1f)  %9.2f (%7.2f .. %7.2f)  %s\n",
			l.Value, l.N, l.TPS, l.TPSLow, l.TPSHi, l.P99ms, l.P99Low, l.P99Hi, gain)
	}
	for _, l := range a.Levels {
		if l.GainMethod != "" {
			how := "the differences within each repetition (every value runs once per repetition)"
			if l.GainMethod == GainWelch {
				how = "Welch's, on the means"
			}
			fmt.Fprintf(w, "gain per unit: 95%% interval of %s\n", how)
			break
		}
	}
	if a.Knee > 0 {
		_, err := fmt.Fprintf(w, "knee: %s %d — %s\n", a.Axis, a.Knee, a.KneeNote)
		return err
	}
	_, err := fmt.Fprintf(w, "knee: not found — %s\n", a.KneeNote)
	return err
}
