package driver

import (
	"fmt"
	"strings"
	"time"
)

// Figure is one named number of a progress line ("tpmC 12345").
type Figure struct {
	Name  string
	Value float64
}

// KindLatency is the p95 of one transaction kind over the progress window.
type KindLatency struct {
	Short string // "NO", "P", ...
	P95   time.Duration
	Count int64
}

// ProgressLine formats the live line printed every --progress seconds:
// elapsed time, headline rates, p95 per kind and the error count.
func ProgressLine(elapsed time.Duration, figures []Figure, kinds []KindLatency, errors, retries int64, note string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%6.0fs", elapsed.Seconds())
	for _, f := range figures {
		fmt.Fprintf(&b, "  %s %.0f", f.Name, f.Value)
	}
	b.WriteString("  p95")
	for _, k := range kinds {
		if k.Count == 0 {
			fmt.Fprintf(&b, " %s -", k.Short)
			continue
		}
		fmt.Fprintf(&b, " %s %s", k.Short, FormatLatency(k.P95))
	}
	fmt.Fprintf(&b, "  err %d retry %d", errors, retries)
	if note != "" {
		b.WriteString("  " + note)
	}
	return b.String()
}

// FormatLatency prints a latency with three significant digits in a fitting unit.
func FormatLatency(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
}
