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

// Series is the per-interval history of a run.
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
	n := len(snap.Hists)
	p := Point{
		Elapsed: snap.End.Sub(s.Start), Length: snap.End.Sub(snap.Start),
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
	s.Points = append(s.Points, p)
	return p
}

// Rate returns kind's completions per minute in point i.
func (s *Series) Rate(i, kind int) float64 {
	p := s.Points[i]
	if p.Length <= 0 {
		return 0
	}
	return float64(p.Counts[kind]) / p.Length.Minutes()
}
