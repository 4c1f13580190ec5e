package metrics

import (
	"testing"
	"time"
)

func TestSeriesAddsOnePointPerInterval(t *testing.T) {
	r := NewRecorder([]string{"a", "b"}, "errors")
	l := r.NewLocal()
	s := NewSeries(r, time.Now())
	for i := 1; i <= 3; i++ {
		for range i * 10 {
			l.Record(0, 2*time.Millisecond)
		}
		l.Add(1, 0, int64(i))
		s.Add(r.Interval(), i > 1)
	}
	if len(s.Points) != 3 {
		t.Fatalf("%d points, want 3", len(s.Points))
	}
	for i, p := range s.Points {
		if p.Counts[0] != int64((i+1)*10) || p.Counts[1] != 0 || p.Counters[1][0] != int64(i+1) {
			t.Errorf("point %d: counts %v counters %v", i, p.Counts, p.Counters)
		}
		if p.P95[0] < 1900*time.Microsecond || p.P95[0] > 2100*time.Microsecond {
			t.Errorf("point %d: p95 %v, want ~2ms", i, p.P95[0])
		}
		if p.Measured != (i > 0) {
			t.Errorf("point %d: measured %v", i, p.Measured)
		}
	}
	if s.Rate(2, 0) <= 0 {
		t.Error("rate of a non-empty point is zero")
	}
}

// TestWeekLongSeriesStaysBounded feeds a series a week of 1 s points on a
// fake clock: it never holds more than MaxPoints, every completion and counter
// is still counted, the points still tile the run end to end, and the
// ramp-up/measured boundary is kept.
func TestWeekLongSeriesStaysBounded(t *testing.T) {
	const week = 7 * 24 * 3600
	const rampUp = 60
	s := &Series{Kinds: []string{"a", "b"}, CounterNames: []string{"errors"}, Start: time.Unix(0, 0)}
	longest := 0
	for i := 1; i <= week; i++ {
		s.keep(Point{Elapsed: time.Duration(i) * time.Second, Length: time.Second, Measured: i > rampUp,
			Counts: []int64{10, 1}, P50: []time.Duration{time.Millisecond, 0}, P95: []time.Duration{2 * time.Millisecond, 0},
			P99: []time.Duration{time.Duration(i%100) * time.Millisecond, 0}, Counters: [][]int64{{1}, {0}}})
		longest = max(longest, len(s.Points))
	}
	if longest > MaxPoints {
		t.Fatalf("the series held %d points, want at most %d", longest, MaxPoints)
	}
	var counts, errors int64
	var covered, measured time.Duration
	var worstP99 time.Duration
	for i, p := range s.Points {
		counts += p.Counts[0]
		errors += p.Counters[0][0]
		covered += p.Length
		if p.Measured {
			measured += p.Length
		}
		worstP99 = max(worstP99, p.P99[0])
		if i > 0 && p.Elapsed-p.Length != s.Points[i-1].Elapsed {
			t.Fatalf("point %d starts at %v, the previous ends at %v: gap or overlap", i, p.Elapsed-p.Length, s.Points[i-1].Elapsed)
		}
	}
	if counts != 10*week || errors != week || covered != week*time.Second || measured != (week-rampUp)*time.Second {
		t.Errorf("after coarsening: %d completions (want %d), %d errors (want %d), %v covered, %v measured", counts, 10*week, errors, week, covered, measured)
	}
	if worstP99 != 99*time.Millisecond {
		t.Errorf("worst p99 %v, want 99ms kept as an upper bound", worstP99)
	}
	if last := s.Points[len(s.Points)-1]; last.Elapsed != week*time.Second {
		t.Errorf("last point ends at %v", last.Elapsed)
	}
}
