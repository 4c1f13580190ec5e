package measure

import (
	"io"
	"time"

	"github.com/pgoltp/pgoltp/internal/metrics"
)

// Options configure a Meter.
type Options struct {
	// Ramp is the ramp-up: intervals that start before it ends are in the
	// series (marked not measured) but not in the measured totals.
	Ramp time.Duration
	// Each is the interval (series point) length; 0 means one second.
	Each time.Duration
	// SeriesKinds keeps the first SeriesKinds kinds in the series and in
	// what OnInterval sees (0: all): tpcb's series is its transactions only.
	SeriesKinds int
	// WindowEach, if set, keeps exact histograms of every kind per window of
	// about that length (Windows), bounded in number (MaxWindows).
	WindowEach time.Duration
	// Progress, ProgressOut and ProgressLine print the live line: every
	// Progress, ProgressLine's text of the intervals since the last line.
	Progress     time.Duration
	ProgressOut  io.Writer
	ProgressLine func(Progress) string
	// OnInterval, if set, gets each interval of the series as it is added,
	// on the Meter's goroutine; it must return quickly and neither modify
	// nor keep the interval's snapshot.
	OnInterval func(Interval)
	// Budgets are the --stop-at-txns budgets of the run (nil ones have no
	// limit); Progress.TimeLeft estimates the one furthest from its end.
	Budgets []*Budget
}

// Interval is one drained interval as added to the series.
type Interval struct {
	Snap     *metrics.Snapshot // the series' kinds only
	Point    metrics.Point
	Measured bool
}

// Progress is what a live line is made of.
type Progress struct {
	Now      time.Time
	Elapsed  time.Duration     // since the start of the run
	Since    *metrics.Snapshot // since the previous line
	Window   time.Duration     // length of Since
	All      *metrics.Snapshot // since the start, ramp-up included
	Measured bool              // the last interval was measured
	TimeLeft string            // the budget's estimate, "" without one
}

// Meter drains a run's metrics once per interval into its series, its
// measured totals and its progress line. It runs on one goroutine (the
// run's, or its own with Background); nothing on the hot path touches it.
type Meter struct {
	rec            *metrics.Recorder
	opts           Options
	start, rampEnd time.Time
	series         *metrics.Series
	total          *metrics.Snapshot // measured intervals
	all            *metrics.Snapshot // every interval (total itself without ramp-up)
	prog           *metrics.Snapshot // since the last progress line (nil: no progress)
	lastProg       time.Time
	window         *metrics.Snapshot // the current histogram window (nil: none)
	windows        []Window
	first, last    time.Time // the measured window
}

// New starts a meter on rec's kinds with the run's clock at start. The
// caller drains what rec held before (rec.Interval()) when the clock starts.
func New(rec *metrics.Recorder, start time.Time, opts Options) *Meter {
	if opts.Each <= 0 {
		opts.Each = time.Second
	}
	kinds := rec.Kinds()
	if opts.SeriesKinds > 0 {
		kinds = kinds[:opts.SeriesKinds]
	}
	m := &Meter{rec: rec, opts: opts, start: start, rampEnd: start.Add(opts.Ramp), lastProg: start,
		series: &metrics.Series{Kinds: kinds, CounterNames: rec.CounterNames(), Start: start},
		total:  rec.EmptySnapshot()}
	m.total.Start = start
	m.all = m.total
	if opts.Ramp > 0 {
		m.all = rec.EmptySnapshot()
		m.all.Start = start
	}
	if opts.Progress > 0 && opts.ProgressOut != nil && opts.ProgressLine != nil {
		m.prog = rec.EmptySnapshot()
	}
	if opts.WindowEach > 0 {
		m.window = rec.EmptySnapshot()
		m.window.Start = start
	}
	return m
}

// Tick drains the recorder and adds the interval; final marks the one taken
// when the workers have stopped (no progress line for it, and it closes the
// last histogram window).
func (m *Meter) Tick(final bool) { m.Add(m.rec.Interval(), final) }

// Add adds one drained interval of the meter's recorder.
func (m *Meter) Add(snap *metrics.Snapshot, final bool) {
	// Intervals start every Each from the clock's start; one that began
	// (within rounding) at or after the end of ramp-up is measured.
	measured := !snap.Start.Before(m.rampEnd.Add(-100 * time.Millisecond))
	view := m.seriesView(snap)
	p := m.series.Add(view, measured)
	m.merge(snap, measured)
	if measured {
		if m.first.IsZero() {
			m.first = snap.Start
		}
		m.last = snap.End
	}
	if m.window != nil {
		m.window.Merge(snap)
		if final || snap.End.Sub(m.window.Start) >= m.opts.WindowEach-m.opts.Each/2 {
			m.windows = keepWindow(m.windows, windowOf(m.window, m.start))
			m.window = m.rec.EmptySnapshot()
			m.window.Start = snap.End
		}
	}
	if fn := m.opts.OnInterval; fn != nil {
		fn(Interval{Snap: view, Point: p, Measured: measured})
	}
	if m.prog != nil {
		m.prog.Merge(snap)
		if !final && snap.End.Sub(m.lastProg) >= m.opts.Progress-m.opts.Each/2 {
			_, _ = io.WriteString(m.opts.ProgressOut, m.opts.ProgressLine(m.progress(snap.End, measured))+"\n")
			m.prog = m.rec.EmptySnapshot()
			m.lastProg = snap.End
		}
	}
}

// Drain adds the intervals that follow the workers' end (tpcc's queued
// Deliveries): counted in the totals, not stretching the measured window,
// not handed to OnInterval.
func (m *Meter) Drain(snap *metrics.Snapshot) {
	measured := !m.first.IsZero()
	m.series.Add(m.seriesView(snap), measured)
	m.merge(snap, measured)
}

func (m *Meter) merge(snap *metrics.Snapshot, measured bool) {
	m.all.Merge(snap)
	if measured && m.total != m.all {
		m.total.Merge(snap)
	}
}

// seriesView is snap with the series' kinds only (no copy).
func (m *Meter) seriesView(s *metrics.Snapshot) *metrics.Snapshot {
	n := len(m.series.Kinds)
	if n == len(s.Kinds) {
		return s
	}
	return &metrics.Snapshot{Kinds: s.Kinds[:n], CounterNames: s.CounterNames, Start: s.Start, End: s.End,
		Hists: s.Hists[:n], Clamped: s.Clamped[:n], Counters: s.Counters[:n]}
}

func (m *Meter) progress(now time.Time, measured bool) Progress {
	return Progress{Now: now, Elapsed: now.Sub(m.start), Since: m.prog, Window: now.Sub(m.lastProg),
		All: m.all, Measured: measured, TimeLeft: m.TimeLeft(now.Sub(m.start))}
}

// TimeLeft is the budgets' estimate of the rest of the run after elapsed,
// from the budget furthest from its end ("" without one).
func (m *Meter) TimeLeft(elapsed time.Duration) string {
	var slowest *Budget
	for _, b := range m.opts.Budgets {
		if b == nil {
			continue
		}
		if slowest == nil || float64(b.Taken())/float64(b.Limit()) < float64(slowest.Taken())/float64(slowest.Limit()) {
			slowest = b
		}
	}
	return slowest.TimeLeft(elapsed)
}

// Start is when the run's clock started.
func (m *Meter) Start() time.Time { return m.start }

// MeasureStart and MeasureEnd bound the measured intervals (zero: none).
func (m *Meter) MeasureStart() time.Time { return m.first }

// MeasureEnd is the end of the last measured interval (zero: none).
func (m *Meter) MeasureEnd() time.Time { return m.last }

// Measured is the length of the measured window.
func (m *Meter) Measured() time.Duration {
	if m.first.IsZero() {
		return 0
	}
	return m.last.Sub(m.first)
}

// Series is the per-interval series (the series' kinds).
func (m *Meter) Series() *metrics.Series { return m.series }

// Total is the merged measured intervals, every kind.
func (m *Meter) Total() *metrics.Snapshot { return m.total }

// All is the merged intervals, ramp-up included.
func (m *Meter) All() *metrics.Snapshot { return m.all }

// Windows are the histogram windows (WindowEach), oldest first.
func (m *Meter) Windows() []Window { return m.windows }
