package recorder

import (
	"math"
	"sort"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/store"
)

// hourWindow merges each interval's histograms into one per transaction type
// for the current hour of the run, and hands the hour over, encoded, when an
// interval of a later hour arrives. Averaging the intervals' p99s is not the
// hour's p99 (a few slow intervals are diluted); merging histograms is exact.
// It holds at most one histogram per type: the current hour's.
type hourWindow struct {
	start time.Time // the run's StartedAt: the time axis of the stored series
	hour  int
	hists map[string]*hdrhistogram.Histogram
}

func newHourWindow(start time.Time) *hourWindow {
	return &hourWindow{start: start, hists: map[string]*hdrhistogram.Histogram{}}
}

// add merges snap into its hour (that of its start, as the stored series
// counts it). When snap begins a later hour, the hour it closes is returned,
// encoded, and the window starts afresh. An interval before the run's start
// is left out, as the reports leave out its series interval.
func (w *hourWindow) add(snap *metrics.Snapshot) (closed []store.HourHistogram, err error) {
	sec := secondOf(w.start, snap.Start)
	if sec < 0 {
		return nil, nil
	}
	if h := sec / 3600; h > w.hour {
		closed, err = w.take()
		w.hour = h
	}
	for k, kind := range snap.Kinds {
		src := snap.Hists[k]
		if src.TotalCount() == 0 {
			continue
		}
		dst := w.hists[kind]
		if dst == nil {
			dst = metrics.NewHistogram()
			w.hists[kind] = dst
		}
		dst.Merge(src)
	}
	return closed, err
}

// take returns the current hour's histograms, encoded, and empties the
// window (Finish takes the last, partial hour this way).
func (w *hourWindow) take() ([]store.HourHistogram, error) {
	kinds := make([]string, 0, len(w.hists))
	for k := range w.hists {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	out := make([]store.HourHistogram, 0, len(kinds))
	var firstErr error
	for _, k := range kinds {
		hh, err := store.NewHourHistogram(w.hour, k, w.hists[k])
		if err != nil {
			firstErr = err
			continue
		}
		out = append(out, hh)
	}
	clear(w.hists)
	return out, firstErr
}

// inMemory is how many histograms the window holds.
func (w *hourWindow) inMemory() int { return len(w.hists) }

// secondOf is t on the run's time axis, in whole seconds since start, rounded
// as the stored series' Interval.Second is.
func secondOf(start, t time.Time) int { return int(math.Round(t.Sub(start).Seconds())) }
