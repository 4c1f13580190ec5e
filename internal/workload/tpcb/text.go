package tpcb

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// WriteText prints each condition with its verdict, for people.
func (r *CheckResult) WriteText(w io.Writer) {
	for _, c := range r.Conditions {
		verdict := "ok"
		if !c.OK {
			verdict = "FAILED"
		}
		fmt.Fprintf(w, "%-26s %-6s %s\n", c.Name, verdict, c.Detail)
	}
}

// ParseDuration reads a plain number in unit (pgbench's -T seconds, -L
// milliseconds) or a Go duration ("24h"); "" is zero.
func ParseDuration(s string, unit time.Duration) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 {
			return 0, fmt.Errorf("negative")
		}
		// NaN, Inf and anything past 292 years convert to a negative
		// Duration (the conversion is undefined beyond int64).
		ns := f * float64(unit)
		if math.IsNaN(ns) || ns >= math.MaxInt64 {
			return 0, fmt.Errorf("invalid")
		}
		return time.Duration(ns), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid")
	}
	return d, nil
}
