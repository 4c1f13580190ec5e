package store

import (
	"testing"
	"time"
)

// A run with an end went from start to end; one without (running, or killed
// before Finish) went as far as its stored intervals reach, merged intervals
// counting their whole length.
func TestDuration(t *testing.T) {
	start := time.Date(2026, 11, 24, 21, 42, 0, 0, time.UTC)
	series := []Interval{{Second: 0}, {Second: 1}, {Second: 7200, Length: 20}, {Second: 3600}}
	cases := []struct {
		name string
		run  Run
		want time.Duration
	}{
		{"ended", Run{StartedAt: start, EndedAt: start.Add(90 * time.Minute), Series: series}, 90 * time.Minute},
		{"killed", Run{StartedAt: start, Series: series}, 2*time.Hour + 20*time.Second},
		{"killed before its first second", Run{StartedAt: start}, 0},
		{"one-second interval", Run{StartedAt: start, Series: []Interval{{Second: 59}}}, time.Minute},
		{"end before start", Run{StartedAt: start, EndedAt: start.Add(-time.Second)}, 0},
	}
	for _, c := range cases {
		if got := c.run.Duration(); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
