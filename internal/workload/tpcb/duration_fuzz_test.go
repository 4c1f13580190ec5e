package tpcb

import (
	"strings"
	"testing"
	"time"
)

// FuzzParseDuration: an accepted --duration or --latency-limit is not
// negative and reads back the same from its Go form (time.Duration.String,
// how a run's parameters show it); anything else is refused.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"60", "90m", "24h", "", " 30 ", "0.5", "50ms", "-1", "-1s", "1e300", "NaN", "Inf", "1e10", "9223372036", "1h30m", "5 min", "0x10"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, seconds bool) {
		unit := time.Millisecond
		if seconds {
			unit = time.Second
		}
		d, err := ParseDuration(s, unit)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("ParseDuration(%q): the error is not one line: %q", s, err)
			}
			return
		}
		if d < 0 {
			t.Fatalf("ParseDuration(%q, %v) = %v, negative", s, unit, d)
		}
		if back, err := ParseDuration(d.String(), unit); err != nil || back != d {
			t.Fatalf("ParseDuration(%q, %v) = %v, which reads back as %v, %v", s, unit, d, back, err)
		}
	})
}
