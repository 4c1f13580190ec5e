package metrics

import "time"

// Point is one interval (normally one second) of a run: how many of each kind
// completed, their p50/p95/p99, and the counters.
type Point struct {
	Elapsed  time.Duration   `json:"elapsed_ns"` // end of the interval, since the run started
	Length   time.Duration   `json:"length_ns"`  // length of the interval
	Counts   []int64         `json:"counts"`     // per kind
	P50      []time.Duration `json:"p50_ns"`     // per kind, 0 when none completed
	P95      []time.Duration `json:"p95_ns"`
	P99      []time.Duration `json:"p99_ns"`
	Counters [][]int64       `json:"counters"` // [kind][counter]
	Measured bool            `json:"measured"` // inside the measurement interval (after ramp-up)
}

// MaxPoints bounds a series in memory. A run of many hours (days of pgbench
// transactions) would otherwise keep one point per second for its whole
// length: a week is 604,800 points per series, and the driver's memory would
// grow all along. When a series reaches MaxPoints, neighbouring points are
// merged pairwise (counts and counters summed, percentiles the larger of the
// two: an upper bound), halving its resolution; the oldest part of a long run
// ends coarsest. Runs up to half an hour keep every second in memory, and
// memory stops growing there, which is what a soak can check. A recorded
// run keeps every second however long it goes: the recorder stores each
// interval in the results store as it arrives (PointOf), not this series.
// Totals and headline figures never come from the series (they come from the
// run's merged histograms), so nothing is lost but resolution.
const MaxPoints = 1800

// Series is the per-interval history of a run, at most MaxPoints long.
type Series struct {
	Kinds        []string  `json:"kinds"`
	CounterNames []string  `json:"counter_names"`
	Start        time.Time `json:"start"`
	Points       []Point   `json:"points"`
}

// NewSeries starts an empty series for the recorder's kinds and counters.
func NewSeries(r *Recorder, start time.Time) *Series {
	return &Series{Kinds: r.Kinds(), CounterNames: r.CounterNames(), Start: start}
}

// Add appends the point for one interval snapshot.
func (s *Series) Add(snap *Snapshot, measured bool) Point {
	p := PointOf(snap, s.Start, measured)
	s.keep(p)
	return p
}

// PointOf is the point of one interval snapshot on a series starting at
// start: what Series.Add keeps, and what a caller streaming the intervals
// elsewhere (the recorder, into the results store) stores.
func PointOf(snap *Snapshot, start time.Time, measured bool) Point {
	n := len(snap.Hists)
	p := Point{
		Elapsed: snap.End.Sub(start), Length: snap.End.Sub(snap.Start),
		Counts: make([]int64, n), P50: make([]time.Duration, n), P95: make([]time.Duration, n),
		P99: make([]time.Duration, n), Counters: make([][]int64, n), Measured: measured,
	}
	for k, h := range snap.Hists {
		p.Counts[k] = h.TotalCount()
		if p.Counts[k] > 0 {
			v := h.ValueAtPercentilesSlice([]float64{50, 95, 99})
			p.P50[k], p.P95[k], p.P99[k] = time.Duration(v[0])*time.Microsecond,
				time.Duration(v[1])*time.Microsecond, time.Duration(v[2])*time.Microsecond
		}
		p.Counters[k] = append([]int64(nil), snap.Counters[k]...)
	}
	return p
}

// keep appends p, coarsening the series when it reaches MaxPoints.
func (s *Series) keep(p Point) {
	s.Points = append(s.Points, p)
	if len(s.Points) >= MaxPoints {
		s.coarsen()
	}
}

// coarsen merges neighbouring points pairwise, never across the start of the
// measurement interval (a merged point is measured or not as a whole).
func (s *Series) coarsen() {
	out := s.Points[:0] // in place: out never overtakes the point being read
	for i := 0; i < len(s.Points); {
		p := s.Points[i]
		i++
		if i < len(s.Points) && s.Points[i].Measured == p.Measured {
			p = merged(p, s.Points[i])
			i++
		}
		out = append(out, p)
	}
	clear(s.Points[len(out):]) // let the merged-away slices be collected
	s.Points = out
}

// merged is one point covering a and the point b right after it.
func merged(a, b Point) Point {
	n := len(a.Counts)
	m := Point{Elapsed: b.Elapsed, Length: a.Length + b.Length, Measured: a.Measured,
		Counts: make([]int64, n), P50: make([]time.Duration, n), P95: make([]time.Duration, n),
		P99: make([]time.Duration, n), Counters: make([][]int64, n)}
	for k := range n {
		m.Counts[k] = a.Counts[k] + b.Counts[k]
		m.P50[k], m.P95[k], m.P99[k] = max(a.P50[k], b.P50[k]), max(a.P95[k], b.P95[k]), max(a.P99[k], b.P99[k])
		m.Counters[k] = make([]int64, len(a.Counters[k]))
		for c := range a.Counters[k] {
			m.Counters[k][c] = a.Counters[k][c] + b.Counters[k][c]
		}
	}
	return m
}

// Rate returns kind's completions per minute in point i.
func (s *Series) Rate(i, kind int) float64 {
	p := s.Points[i]
	if p.Length <= 0 {
		return 0
	}
	return float64(p.Counts[kind]) / p.Length.Minutes()
}
