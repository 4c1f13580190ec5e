package metrics

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Snapshot is what a recorder measured over an interval (or, merged, over a
// whole run): one histogram, clamped count and counter row per kind. A Snapshot
// is owned by whoever holds it; nothing records into it concurrently.
type Snapshot struct {
	Kinds        []string
	CounterNames []string
	Start, End   time.Time
	Hists        []*hdrhistogram.Histogram // microseconds, per kind
	Clamped      []int64                   // latencies above HighestMicros, per kind
	Counters     [][]int64                 // [kind][counter]
}

// Merge adds o into s; both must come from recorders with the same kinds and
// counters. The time span widens to cover both.
func (s *Snapshot) Merge(o *Snapshot) {
	for k := range s.Hists {
		if o.Hists[k].TotalCount() > 0 {
			s.Hists[k].Merge(o.Hists[k])
		}
		s.Clamped[k] += o.Clamped[k]
		for c := range s.Counters[k] {
			s.Counters[k][c] += o.Counters[k][c]
		}
	}
	if s.Start.IsZero() || (!o.Start.IsZero() && o.Start.Before(s.Start)) {
		s.Start = o.Start
	}
	if o.End.After(s.End) {
		s.End = o.End
	}
}

// Clone returns a deep copy of s.
func (s *Snapshot) Clone() *Snapshot {
	c := &Snapshot{Kinds: s.Kinds, CounterNames: s.CounterNames, Start: s.Start, End: s.End,
		Hists: make([]*hdrhistogram.Histogram, len(s.Hists)), Clamped: append([]int64(nil), s.Clamped...),
		Counters: make([][]int64, len(s.Counters))}
	for k, h := range s.Hists {
		c.Hists[k] = h.Clone()
		c.Counters[k] = append([]int64(nil), s.Counters[k]...)
	}
	return c
}

// Count returns the number of latencies recorded for kind.
func (s *Snapshot) Count(kind int) int64 { return s.Hists[kind].TotalCount() }

// TotalCount returns the number of latencies recorded over all kinds.
func (s *Snapshot) TotalCount() int64 {
	var n int64
	for _, h := range s.Hists {
		n += h.TotalCount()
	}
	return n
}

// Counter returns one counter of one kind.
func (s *Snapshot) Counter(kind, counter int) int64 { return s.Counters[kind][counter] }

// CounterTotal returns one counter summed over all kinds.
func (s *Snapshot) CounterTotal(counter int) int64 {
	var n int64
	for k := range s.Counters {
		n += s.Counters[k][counter]
	}
	return n
}

// Percentile returns the latency at percentile p (0..100) of kind, 0 if empty.
func (s *Snapshot) Percentile(kind int, p float64) time.Duration {
	return Percentile(s.Hists[kind], p)
}

// Percentile returns the latency at percentile p (0..100) of a microsecond
// histogram, 0 if it is empty.
func Percentile(h *hdrhistogram.Histogram, p float64) time.Duration {
	if h.TotalCount() == 0 {
		return 0
	}
	return time.Duration(h.ValueAtPercentile(p)) * time.Microsecond
}

// LatencySummary is the usual digest of one histogram.
type LatencySummary struct {
	Count   int64         `json:"count"`
	Mean    time.Duration `json:"mean_ns"`
	P50     time.Duration `json:"p50_ns"`
	P90     time.Duration `json:"p90_ns"`
	P95     time.Duration `json:"p95_ns"`
	P99     time.Duration `json:"p99_ns"`
	P999    time.Duration `json:"p99_9_ns"`
	Max     time.Duration `json:"max_ns"`
	Clamped int64         `json:"clamped"` // latencies above one hour, recorded as one hour
}

// Summary returns the digest of kind.
func (s *Snapshot) Summary(kind int) LatencySummary {
	return SummaryOf(s.Hists[kind], s.Clamped[kind])
}

// SummaryOf is the digest of a histogram of µs latencies, of which clamped
// were above the histogram's range and recorded at its top.
func SummaryOf(h *hdrhistogram.Histogram, clamped int64) LatencySummary {
	sum := LatencySummary{Count: h.TotalCount(), Clamped: clamped}
	if sum.Count == 0 {
		return sum
	}
	us := time.Microsecond
	v := h.ValueAtPercentilesSlice([]float64{50, 90, 95, 99, 99.9})
	sum.Mean = time.Duration(h.Mean() * float64(us))
	sum.P50, sum.P90, sum.P95, sum.P99, sum.P999 = time.Duration(v[0])*us, time.Duration(v[1])*us,
		time.Duration(v[2])*us, time.Duration(v[3])*us, time.Duration(v[4])*us
	sum.Max = time.Duration(h.Max()) * us
	return sum
}

// Export returns the histograms in HdrHistogram's portable form, keyed by kind
// name, so results can be stored and merged or re-read later (hdrhistogram.Import).
func (s *Snapshot) Export() map[string]*hdrhistogram.Snapshot {
	m := make(map[string]*hdrhistogram.Snapshot, len(s.Kinds))
	for k, name := range s.Kinds {
		m[name] = s.Hists[k].Export()
	}
	return m
}
