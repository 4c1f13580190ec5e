package collect

import (
	"testing"
	"time"
)

// TestWeekOfTicksKeepsMemoryBounded drives a session's sample buffer through
// a week of 1 s ticks on a fake clock (no server, no real time): 10 points a
// tick, handed out with Take every 10 ticks as report.Recording does. The
// buffer never holds more than 10 ticks of points, its capacity does not grow
// with the run, and what Stop would return at the end is only the last ticks.
func TestWeekOfTicksKeepsMemoryBounded(t *testing.T) {
	const (
		perTick    = 10
		flushTicks = 10
		week       = 7 * 24 * 3600
	)
	s := &Session{}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pts := make([]Point, perTick)
	for k := range pts {
		pts[k] = Point{Metric: "pg.fake", Key: string(rune('a' + k%26))}
	}
	taken, maxLen, maxCap := 0, 0, 0
	for i := 1; i <= week; i++ {
		now := start.Add(time.Duration(i) * time.Second) // the fake clock
		for k := range pts {
			pts[k].At, pts[k].Value = now, float64(i)
		}
		s.keep(pts, nil)
		maxLen, maxCap = max(maxLen, len(s.samples.Points)), max(maxCap, cap(s.samples.Points))
		if i%flushTicks == 0 {
			p, _ := s.Take()
			taken += len(p)
		}
	}
	// The last ticks of the week, not yet taken: what the final write adds.
	for i := 1; i <= 3; i++ {
		s.keep(pts, nil)
	}
	if maxLen > flushTicks*perTick {
		t.Errorf("the buffer held %d points at most, want at most %d (10 ticks)", maxLen, flushTicks*perTick)
	}
	if maxCap > 2*flushTicks*perTick {
		t.Errorf("the buffer's capacity reached %d points, want it bounded by 2×10 ticks", maxCap)
	}
	if taken != week*perTick || s.samples.Taken != taken {
		t.Errorf("%d points taken (session counted %d), want every one of %d", taken, s.samples.Taken, week*perTick)
	}
	if left := len(s.samples.Points); left != 3*perTick {
		t.Errorf("%d points left for the final write, want the last 3 ticks' %d", left, 3*perTick)
	}
}
