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
