package measure

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/metrics"
)

// interval drains rec with n latencies of kind 0 (one error on kind 1) and
// stamps it second i of a run from start.
func interval(rec *metrics.Recorder, l *metrics.Local, start time.Time, i, n int) *metrics.Snapshot {
	for range n {
		l.Record(0, time.Millisecond)
	}
	l.Record(1, 5*time.Millisecond)
	l.Add(1, 0, 1)
	s := rec.Interval()
	s.Start, s.End = start.Add(time.Duration(i)*time.Second), start.Add(time.Duration(i+1)*time.Second)
	return s
}

// TestMeterSplitsRampUpAndHandsEveryInterval: ramp-up intervals are in the
// series (not measured) and in All, not in Total; the measured window is
// the measured intervals'; OnInterval gets every interval with the series'
// kinds only; a drained interval after the end counts but does not stretch
// the window; the progress line comes every Progress, never for the final
// interval, with the intervals since the previous line.
func TestMeterSplitsRampUpAndHandsEveryInterval(t *testing.T) {
	t.Parallel()
	rec := metrics.NewRecorder([]string{"txn", "other"}, "errors")
	l := rec.NewLocal()
	start := time.Now()
	var got []Interval
	var out strings.Builder
	var lines []Progress
	m := New(rec, start, Options{Ramp: 2 * time.Second, SeriesKinds: 1, Progress: 2 * time.Second, ProgressOut: &out,
		ProgressLine: func(p Progress) string { lines = append(lines, p); return "line" },
		OnInterval:   func(iv Interval) { got = append(got, iv) }, WindowEach: 3 * time.Second})
	for i := range 6 {
		m.Add(interval(rec, l, start, i, 10*(i+1)), i == 5)
	}
	m.Drain(interval(rec, l, start, 6, 1000))

	if len(got) != 6 || got[0].Measured || got[1].Measured || !got[2].Measured || len(got[0].Snap.Kinds) != 1 {
		t.Fatalf("intervals handed: %+v", got)
	}
	if got[3].Point.Counts[0] != 40 {
		t.Errorf("fourth interval counts %v, want [40]", got[3].Point.Counts)
	}
	if n := len(m.Series().Points); n != 7 || len(m.Series().Kinds) != 1 {
		t.Errorf("series of %d points on %v, want 7 on [txn]", n, m.Series().Kinds)
	}
	// Measured: seconds 2..5 (30+40+50+60) and the drain (1000).
	if c := m.Total().Count(0); c != 1180 {
		t.Errorf("measured total %d, want 1180", c)
	}
	if c, e := m.All().Count(0), m.All().CounterTotal(0); c != 1210 || e != 7 {
		t.Errorf("all: %d latencies, %d errors, want 1210 and 7", c, e)
	}
	if m.MeasureStart() != start.Add(2*time.Second) || m.Measured() != 4*time.Second {
		t.Errorf("measured window %v from %v, want 4s from the end of ramp-up", m.Measured(), m.MeasureStart().Sub(start))
	}
	if len(lines) != 2 || lines[0].Since.Count(0) != 30 || lines[0].Measured || !lines[1].Measured || lines[1].Since.Count(0) != 70 {
		t.Errorf("progress lines: %d, %+v", len(lines), lines)
	}
	if out.String() != "line\nline\n" {
		t.Errorf("progress output %q", out.String())
	}
	ws := m.Windows()
	if len(ws) != 2 || ws[0].To != 3*time.Second || ws[1].From != 3*time.Second || ws[1].Summaries["txn"].Count != 150 {
		t.Errorf("windows: %+v", ws)
	}
}

// TestMeterWithoutRampUpMeasuresAll: with no ramp-up every interval is
// measured and All is Total.
func TestMeterWithoutRampUpMeasuresAll(t *testing.T) {
	t.Parallel()
	rec := metrics.NewRecorder([]string{"txn", "other"}, "errors")
	l := rec.NewLocal()
	start := time.Now()
	m := New(rec, start, Options{})
	m.Add(interval(rec, l, start, 0, 5), false)
	m.Add(interval(rec, l, start, 1, 5), true)
	if m.All() != m.Total() || m.Total().Count(0) != 10 || !m.Series().Points[0].Measured {
		t.Errorf("total %d, all is total %v", m.Total().Count(0), m.All() == m.Total())
	}
}

// TestWaitStops: Wait ends on the duration, on done and on ctx, ticking in
// between.
func TestWaitStops(t *testing.T) {
	t.Parallel()
	ticks := 0
	if s := Wait(context.Background(), 10*time.Millisecond, 200*time.Millisecond, nil, func() { ticks++ }); s != StopDuration || ticks < 2 {
		t.Errorf("duration: %v after %d ticks", s, ticks)
	}
	done := make(chan struct{})
	close(done)
	if s := Wait(context.Background(), time.Hour, 0, done, func() {}); s != StopDone {
		t.Errorf("done: %v", s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if s := Wait(ctx, time.Hour, time.Hour, nil, func() {}); s != StopInterrupted {
		t.Errorf("ctx: %v", s)
	}
}

// TestBackgroundTakesTheFinalInterval: what is recorded just before stop is
// in the totals.
func TestBackgroundTakesTheFinalInterval(t *testing.T) {
	t.Parallel()
	rec := metrics.NewRecorder([]string{"txn"})
	l := rec.NewLocal()
	m := New(rec, time.Now(), Options{Each: time.Hour})
	stop := m.Background()
	l.Record(0, time.Millisecond)
	stop()
	if m.Total().Count(0) != 1 || len(m.Series().Points) != 1 {
		t.Errorf("total %d, %d points", m.Total().Count(0), len(m.Series().Points))
	}
}

// TestDriveMeasuresEveryWorker: Drive stops the workers at the end of the
// duration, and everything they recorded is in the totals; workers that all
// return end the run early, with their errors.
func TestDriveMeasuresEveryWorker(t *testing.T) {
	t.Parallel()
	rec := metrics.NewRecorder([]string{"txn"})
	locals := []*metrics.Local{rec.NewLocal(), rec.NewLocal(), rec.NewLocal()}
	var done [3]int64
	m := New(rec, time.Now(), Options{Each: 50 * time.Millisecond})
	_, _, stop := m.Drive(context.Background(), 300*time.Millisecond, 3, func(ctx context.Context, i int) error {
		for ctx.Err() == nil {
			locals[i].Record(0, time.Millisecond)
			done[i]++
			time.Sleep(time.Millisecond)
		}
		return nil
	})
	if want := done[0] + done[1] + done[2]; stop != StopDuration || want == 0 || m.Total().Count(0) != want || len(m.Series().Points) < 3 {
		t.Errorf("stop %v, total %d of %d recorded, %d points", stop, m.Total().Count(0), want, len(m.Series().Points))
	}

	failed := errors.New("worker failed")
	errs, _, stop := New(rec, time.Now(), Options{}).Drive(context.Background(), time.Hour, 2, func(_ context.Context, i int) error {
		if i == 1 {
			return failed
		}
		return nil
	})
	if stop != StopDone || errs[0] != nil || errs[1] != failed {
		t.Errorf("stop %v, errors %v", stop, errs)
	}
}
