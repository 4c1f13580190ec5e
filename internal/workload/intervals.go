package workload

import (
	"context"

	"github.com/pgoltp/pgoltp/internal/metrics"
)

// IntervalFunc receives each interval snapshot a workload adds to its
// Result.Series (same kinds, same intervals, ramp-up included), while the run
// goes, on the workload's aggregating goroutine, with the name of the
// snapshot's counter of failed transactions (Result.ErrorCounter). It must
// return quickly and must neither modify nor keep the snapshot: it reads it
// (to merge its histograms into one per hour of the run, to store its row of
// the series) and lets go.
type IntervalFunc func(snap *metrics.Snapshot, errorCounter string)

type intervalsKey struct{}

// WithIntervals returns a context whose workload runs hand every interval to
// fn: how the recorder keeps one real histogram per hour of a long run, and
// every second of its series, without holding the run's intervals in memory.
func WithIntervals(ctx context.Context, fn IntervalFunc) context.Context {
	return context.WithValue(ctx, intervalsKey{}, fn)
}

// IntervalsOf is the IntervalFunc of ctx, or nil. A workload whose driver
// builds a series calls it for each interval; one that does not simply leaves
// its runs without hourly histograms (reports then estimate the hourly p99).
func IntervalsOf(ctx context.Context) IntervalFunc {
	fn, _ := ctx.Value(intervalsKey{}).(IntervalFunc)
	return fn
}
