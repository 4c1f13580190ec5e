package sweep

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/measure"
	"github.com/pgoltp/pgoltp/internal/metrics"
)

// ParsePhases reads a step load: one phase per line, its length and its
// rate in transactions per second ("30s 500"); blank lines and # comments
// are passed over.
func ParsePhases(r io.Reader) ([]measure.RatePhase, error) {
	var out []measure.RatePhase
	var until time.Duration
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("line %d: want a length and a rate, e.g. 30s 500", n)
		}
		d, err := time.ParseDuration(f[0])
		if err != nil || d < time.Second {
			return nil, fmt.Errorf("line %d: %q is not a length of 1s or more", n, f[0])
		}
		rate, err := strconv.ParseFloat(f[1], 64)
		if err != nil || rate < 0 || rate != rate {
			return nil, fmt.Errorf("line %d: %q is not a rate of 0 or more transactions per second", n, f[1])
		}
		until += d
		out = append(out, measure.RatePhase{Until: until, PerSecond: rate})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no phase: give one line per phase, e.g. 30s 500")
	}
	return out, nil
}

// Phase is what one phase of a step load achieved.
type Phase struct {
	N        int           `json:"phase"`
	From     time.Duration `json:"from_ns"`
	To       time.Duration `json:"to_ns"`
	Offered  float64       `json:"offered_tps"`
	TPS      float64       `json:"tps"`
	WorstP99 float64       `json:"worst_second_p99_ms"` // the highest p99 of the phase's seconds (all types)
	Seconds  int           `json:"seconds"`             // measured seconds in the phase
}

// Phases sums a run's series by phase: the seconds whose middle falls in
// each phase's slice.
func Phases(phases []measure.RatePhase, s *metrics.Series) []Phase {
	out := make([]Phase, len(phases))
	var from time.Duration
	for i, p := range phases {
		out[i] = Phase{N: i + 1, From: from, To: p.Until, Offered: p.PerSecond}
		from = p.Until
	}
	if s == nil {
		return out
	}
	lengths := make([]time.Duration, len(out))
	counts := make([]int64, len(out))
	for _, pt := range s.Points {
		mid := pt.Elapsed - pt.Length/2
		for i := range out {
			if mid < out[i].From || mid >= out[i].To {
				continue
			}
			lengths[i] += pt.Length
			out[i].Seconds++
			for k, c := range pt.Counts {
				counts[i] += c
				out[i].WorstP99 = max(out[i].WorstP99, float64(pt.P99[k])/float64(time.Millisecond))
			}
		}
	}
	for i := range out {
		if lengths[i] > 0 {
			out[i].TPS = float64(counts[i]) / lengths[i].Seconds()
		}
	}
	return out
}

// WritePhases writes the phases as a table.
func WritePhases(w io.Writer, phases []Phase) error {
	fmt.Fprintf(w, "%5s  %15s  %12s  %12s  %22s\n", "phase", "slice", "offered tps", "achieved tps", "worst second's p99 ms")
	for _, p := range phases {
		fmt.Fprintf(w, "%5d  %6s..%-7s  %12.1f  %12.1f  %22.2f\n", p.N, p.From, p.To, p.Offered, p.TPS, p.WorstP99)
	}
	return nil
}
