package recorder

import (
	"time"

	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/store"
)

// seriesStream keeps the intervals the workload hands the recording
// (AddInterval) until they are stored: every flushTicks intervals the rows of
// the seconds that are over go to the store, in the background. A week-long
// run thus keeps every second of its series in the store while the recording
// holds a few seconds of it; the workload's own series (Result.Series) is
// coarsened in memory past metrics.MaxPoints and only supplies what came
// after the last interval handed over (a drain after the clients stopped).
type seriesStream struct {
	start    time.Time // the run's StartedAt: the stored series' time axis
	pending  folder    // given, not yet handed to the store
	given    int       // intervals given since the last hand-over
	last     int       // the latest second given (valid when any was)
	any      bool      // an interval was given
	streamed bool      // rows were handed to the store: Finish adds to them
}

// add folds snap's rows into the pending ones and says which rows are ready
// to be stored: every flushTicks intervals, those of the seconds before the
// latest (whose rows may still fold with the next interval).
func (s *seriesStream) add(snap *metrics.Snapshot, errorCounter string) (ready []store.Interval) {
	p := metrics.PointOf(snap, s.start, true)
	rows := pointIntervals(p, snap.Kinds, snap.CounterNames, s.start, s.start, errorCounter)
	for _, iv := range rows {
		s.pending.add(iv)
		if !s.any || iv.Second > s.last {
			s.last, s.any = iv.Second, true
		}
	}
	if s.given++; s.given < flushTicks {
		return nil
	}
	s.given = 0
	ready, rest := split(s.pending.rows, s.last)
	if len(ready) > 0 {
		s.streamed = true
	}
	s.pending = folder{}
	for _, iv := range rest {
		s.pending.add(iv)
	}
	return ready
}

// finish is what Finish stores after the rows handed over: the pending rows
// and, of the workload's whole series (rows from Intervals), the seconds
// after the last one given.
func (s *seriesStream) finish(whole []store.Interval) []store.Interval {
	out := s.pending.rows
	for _, iv := range whole {
		if !s.any || iv.Second > s.last {
			out = append(out, iv)
		}
	}
	s.pending = folder{}
	return out
}

// split parts rows into those before second and the others.
func split(rows []store.Interval, second int) (before, rest []store.Interval) {
	for _, iv := range rows {
		if iv.Second < second {
			before = append(before, iv)
		} else {
			rest = append(rest, iv)
		}
	}
	return before, rest
}

// Intervals converts a driver's per-interval series (internal/metrics) into
// the store's workload-neutral intervals, on the run's time axis (seconds
// since runStart). errorCounter names the counter holding failed transactions
// ("" when there is none).
func Intervals(s *metrics.Series, runStart time.Time, errorCounter string) []store.Interval {
	if s == nil {
		return nil
	}
	var f folder
	for _, p := range s.Points {
		for _, iv := range pointIntervals(p, s.Kinds, s.CounterNames, s.Start, runStart, errorCounter) {
			f.add(iv)
		}
	}
	return f.rows
}

// pointIntervals are the rows of one point of a series that started at
// seriesStart: one per kind, at its starting second since runStart.
func pointIntervals(p metrics.Point, kinds, counters []string, seriesStart, runStart time.Time, errorCounter string) []store.Interval {
	errIdx := -1
	for i, n := range counters {
		if n == errorCounter {
			errIdx = i
		}
	}
	second := secondOf(runStart, seriesStart.Add(p.Elapsed-p.Length))
	out := make([]store.Interval, len(kinds))
	for k, kind := range kinds {
		iv := store.Interval{Second: second, Length: p.Length.Seconds(), Type: kind, Count: p.Counts[k],
			P50: us(p.P50[k]), P95: us(p.P95[k]), P99: us(p.P99[k])}
		if errIdx >= 0 && k < len(p.Counters) && errIdx < len(p.Counters[k]) {
			iv.Errors = p.Counters[k][errIdx]
		}
		out[k] = iv
	}
	return out
}

// folder collects rows, folding a row into an earlier one of the same second
// and type: a short interval (the end of ramp-up, the last partial second)
// can start in the same whole second as its neighbour, and the store keys
// intervals by (second, type).
type folder struct {
	rows []store.Interval
	at   map[folderKey]int
}

type folderKey struct {
	second int
	kind   string
}

func (f *folder) add(iv store.Interval) {
	if f.at == nil {
		f.at = map[folderKey]int{}
	}
	key := folderKey{iv.Second, iv.Type}
	if i, ok := f.at[key]; ok {
		prev := &f.rows[i]
		prev.Length += iv.Length
		prev.Count += iv.Count
		prev.Errors += iv.Errors
		prev.P50, prev.P95, prev.P99 = max(prev.P50, iv.P50), max(prev.P95, iv.P95), max(prev.P99, iv.P99)
		return
	}
	f.at[key] = len(f.rows)
	f.rows = append(f.rows, iv)
}
