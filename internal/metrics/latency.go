// Package metrics holds the driver-side measurements of a run: HDR latency
// histograms per transaction kind, event counters (errors, retries, ...) and the
// per-second series built from them. It knows nothing about TPC-C or TPC-B beyond
// the kind and counter names it is given, and nothing about PostgreSQL.
//
// The hot path is Local.Record: each worker (a connection, a delivery worker)
// owns a Local and records into it under that Local's own mutex, which is only
// ever contended by the run's measure.Meter draining it once per interval.
// There is no lock shared by all workers on the hot path.
package metrics

import (
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram geometry shared by every recorder, so any two snapshots merge exactly.
const (
	// LowestMicros is the smallest trackable latency; shorter ones are recorded as 1µs.
	LowestMicros = 1
	// HighestMicros is the largest trackable latency (1 hour). Longer ones are
	// recorded as HighestMicros and counted in Snapshot.Clamped, never dropped.
	HighestMicros = int64(time.Hour / time.Microsecond)
	// SignificantFigures is the histogram precision: values are kept within 0.1%.
	SignificantFigures = 3
)

// NewHistogram returns an empty histogram with the shared geometry (microseconds).
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(LowestMicros, HighestMicros, SignificantFigures)
}

// Recorder hands out Locals and drains them into Snapshots. Kinds are the
// latency series (e.g. "new_order", "payment"); counters are per-kind event
// counts (e.g. "errors", "retries").
type Recorder struct {
	kinds    []string
	counters []string

	mu     sync.Mutex // guards locals (registration), not recording
	locals []*Local
	last   time.Time
}

// NewRecorder returns a recorder for the given latency kinds and optional
// per-kind counters. The interval of the first Interval call starts now.
func NewRecorder(kinds []string, counters ...string) *Recorder {
	return &Recorder{
		kinds:    append([]string(nil), kinds...),
		counters: append([]string(nil), counters...),
		last:     time.Now(),
	}
}

// Kinds returns the latency kind names, indexed by kind.
func (r *Recorder) Kinds() []string { return r.kinds }

// CounterNames returns the counter names, indexed by counter.
func (r *Recorder) CounterNames() []string { return r.counters }

// NewLocal registers and returns a Local for one worker. A Local must only be
// recorded into by one goroutine at a time (it is safe, but contended, otherwise).
func (r *Recorder) NewLocal() *Local {
	l := &Local{data: newLazyData(len(r.kinds), len(r.counters))}
	r.mu.Lock()
	r.locals = append(r.locals, l)
	r.mu.Unlock()
	return l
}

// Interval drains every Local and returns what was recorded since the previous
// call (or since NewRecorder), stamped with the interval's start and end.
func (r *Recorder) Interval() *Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	s := r.emptySnapshot(r.last, now)
	for _, l := range r.locals {
		l.drainInto(s)
	}
	r.last = now
	return s
}

// EmptySnapshot returns a snapshot with this recorder's kinds and counters and
// nothing recorded, to merge intervals into.
func (r *Recorder) EmptySnapshot() *Snapshot {
	now := time.Now()
	return r.emptySnapshot(now, now)
}

func (r *Recorder) emptySnapshot(start, end time.Time) *Snapshot {
	d := newData(len(r.kinds), len(r.counters))
	return &Snapshot{Kinds: r.kinds, CounterNames: r.counters, Start: start, End: end,
		Hists: d.hists, Clamped: d.clamped, Counters: d.counters}
}

// Local is one worker's histograms and counters.
type Local struct {
	mu   sync.Mutex
	data data
}

type data struct {
	hists    []*hdrhistogram.Histogram
	clamped  []int64
	counters [][]int64 // [kind][counter]
}

func newData(kinds, counters int) data {
	d := data{
		hists:    make([]*hdrhistogram.Histogram, kinds),
		clamped:  make([]int64, kinds),
		counters: make([][]int64, kinds),
	}
	for i := range d.hists {
		d.hists[i] = NewHistogram()
		d.counters[i] = make([]int64, counters)
	}
	return d
}

// newLazyData is newData without histograms: a Local allocates a kind's
// histogram (about 190 KB at this range and precision) on its first record,
// since most workers only ever record a few of the kinds.
func newLazyData(kinds, counters int) data {
	d := data{
		hists:    make([]*hdrhistogram.Histogram, kinds),
		clamped:  make([]int64, kinds),
		counters: make([][]int64, kinds),
	}
	for i := range d.counters {
		d.counters[i] = make([]int64, counters)
	}
	return d
}

// Record adds one latency of the given kind. Latencies outside the trackable
// range are clamped to it; those above it are counted as clamped.
func (l *Local) Record(kind int, d time.Duration) {
	us := int64(d / time.Microsecond)
	l.mu.Lock()
	if us > HighestMicros {
		us = HighestMicros
		l.data.clamped[kind]++
	} else if us < LowestMicros {
		us = LowestMicros
	}
	h := l.data.hists[kind]
	if h == nil {
		h = NewHistogram()
		l.data.hists[kind] = h
	}
	_ = h.RecordValue(us) // cannot fail: us is within range
	l.mu.Unlock()
}

// Add adds n to a counter of the given kind.
func (l *Local) Add(kind, counter int, n int64) {
	l.mu.Lock()
	l.data.counters[kind][counter] += n
	l.mu.Unlock()
}

func (l *Local) drainInto(s *Snapshot) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, h := range l.data.hists {
		if h != nil && h.TotalCount() > 0 {
			s.Hists[k].Merge(h)
			h.Reset()
		}
		s.Clamped[k] += l.data.clamped[k]
		l.data.clamped[k] = 0
		for c, n := range l.data.counters[k] {
			s.Counters[k][c] += n
			l.data.counters[k][c] = 0
		}
	}
}
