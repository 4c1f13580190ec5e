package metrics

import (
	"sync"
	"testing"
	"time"
)

func TestRecorderDrainsLocalsPerInterval(t *testing.T) {
	r := NewRecorder([]string{"a", "b"}, "errors")
	const workers, each = 8, 1000
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		l := r.NewLocal()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1; i <= each; i++ {
				l.Record(0, time.Duration(i)*time.Millisecond)
				l.Record(1, 5*time.Microsecond)
			}
			l.Add(1, 0, 3)
		}()
	}
	wg.Wait()
	s := r.Interval()
	tests := []struct {
		name string
		got  int64
		want int64
	}{
		{"count a", s.Count(0), workers * each},
		{"count b", s.Count(1), workers * each},
		{"total", s.TotalCount(), 2 * workers * each},
		{"errors b", s.Counter(1, 0), 3 * workers},
		{"errors total", s.CounterTotal(0), 3 * workers},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s = %d, want %d", tc.name, tc.got, tc.want)
		}
	}
	// 3 significant figures: p50 of 1..1000 ms is 500 ms within 0.1%.
	if p := s.Percentile(0, 50); p < 499*time.Millisecond || p > 501*time.Millisecond {
		t.Errorf("p50 = %v, want ~500ms", p)
	}
	if p := s.Summary(0).Max; p < 999*time.Millisecond || p > 1001*time.Millisecond {
		t.Errorf("max = %v, want ~1s", p)
	}
	if again := r.Interval(); again.TotalCount() != 0 || again.CounterTotal(0) != 0 {
		t.Errorf("second interval has %d latencies and %d errors, want none", again.TotalCount(), again.CounterTotal(0))
	}
}

func TestRecordClampsAndCountsOutOfRange(t *testing.T) {
	r := NewRecorder([]string{"x"})
	l := r.NewLocal()
	l.Record(0, 3*time.Hour)
	l.Record(0, 0)
	l.Record(0, -time.Second)
	s := r.Interval()
	if s.Count(0) != 3 {
		t.Fatalf("count = %d, want 3 (nothing dropped)", s.Count(0))
	}
	if s.Clamped[0] != 1 {
		t.Errorf("clamped = %d, want 1", s.Clamped[0])
	}
	if m := s.Summary(0).Max; m < 59*time.Minute {
		t.Errorf("max = %v, want about 1h", m)
	}
}

func TestSnapshotMerge(t *testing.T) {
	r := NewRecorder([]string{"x"}, "retries")
	l := r.NewLocal()
	total := r.EmptySnapshot()
	for i := 0; i < 3; i++ {
		l.Record(0, time.Millisecond)
		l.Add(0, 0, 2)
		total.Merge(r.Interval())
	}
	if total.Count(0) != 3 || total.Counter(0, 0) != 6 {
		t.Errorf("merged count %d retries %d, want 3 and 6", total.Count(0), total.Counter(0, 0))
	}
	c := total.Clone()
	c.Merge(total)
	if c.Count(0) != 6 || total.Count(0) != 3 {
		t.Errorf("clone is not independent: clone %d original %d", c.Count(0), total.Count(0))
	}
	if _, ok := total.Export()["x"]; !ok {
		t.Error("export lacks kind x")
	}
}

func BenchmarkLocalRecord(b *testing.B) {
	l := NewRecorder([]string{"x"}).NewLocal()
	for i := 0; i < b.N; i++ {
		l.Record(0, time.Duration(i%100000)*time.Microsecond)
	}
}
