// Package recorder keeps benchmark runs in the results store: it stores a run
// as running from its start, samples the server with the collectors around it
// (storing their points every few seconds, so memory stays flat and a crash
// keeps what was sampled), keeps one latency histogram per transaction type
// for the current hour of the run (stored as each hour closes, so a report's
// hourly p99 is the hour's own), stores the workload's per-second series as
// it goes (so the store keeps every second of a run of any length), and runs
// the sequence every recorded command shares: is the database ready, run,
// check, store the whole run with its status (Run).
//
// It sees workloads only through internal/workload; it must not know TPC-C or
// TPC-B, nor how runs are rendered (internal/report reads what it stored).
package recorder

import (
	"context"
	"sync"
	"time"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/store"
)

// flushTicks is how many samples a recording gathers before it stores them,
// so a crash keeps what was sampled (every 10 s at the default interval).
const flushTicks = 10

// Recording is a run being recorded: stored as running from the start, with
// the collectors sampling the benchmark database and their points stored every
// few seconds, until Finish.
//
//	rec, err := recorder.Begin(ctx, lab, resultsDSN, dsn, run, collect.Options{})
//	res, runErr := w.Run(ctx, dsn, workload.RunOptions{OnInterval: rec.AddInterval}) // Fill(run, res)
//	id, err := rec.Finish(ctx, store.Complete)       // or Interrupted / Failed
type Recording struct {
	st   *store.Store
	sess *collect.Session
	run  *store.Run

	stop chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex // serializes store writes between the flusher and Finish
	// unstored and unstoredEvents were taken from the session but their
	// append failed: tried again at the next flush, and written by Finish at
	// the latest.
	unstored       []collect.Point
	unstoredEvents []collect.Event

	// What AddInterval gets: the current hour's latency histograms and the
	// series' rows not stored yet. A closed hour, and the series' rows of
	// the seconds that are over, are stored by a goroutine of their own, or
	// by Finish when that failed.
	ctx            context.Context
	hours          *hourWindow
	series         *seriesStream
	writes         sync.WaitGroup
	unstoredHours  []store.HourHistogram
	unstoredSeries []store.Interval
	hourErr        error // the first hour that could not be encoded
}

// Begin opens the results store, stores run as running (its Params should be
// set; the rest may come later) and starts collecting on dsn. When the
// collectors cannot start the run is still recorded, with a note saying why.
func Begin(ctx context.Context, labDir, resultsDSN, dsn string, run *store.Run, opts collect.Options) (*Recording, error) {
	st, err := store.Open(ctx, labDir, resultsDSN)
	if err != nil {
		return nil, err
	}
	if run.StartedAt.IsZero() {
		run.StartedAt = time.Now()
	}
	if _, err := st.Begin(ctx, run); err != nil {
		st.Close()
		return nil, err
	}
	r := &Recording{st: st, run: run, stop: make(chan struct{}), ctx: ctx, hours: newHourWindow(run.StartedAt),
		series: &seriesStream{start: run.StartedAt}}
	if dsn != "" {
		if r.sess, err = collect.Start(ctx, dsn, opts); err != nil {
			run.Notes = append(run.Notes, "nothing collected: "+err.Error())
		}
	}
	if r.sess != nil {
		every := opts.Interval
		if every <= 0 {
			every = time.Second
		}
		r.wg.Add(1)
		go r.flush(ctx, flushTicks*every)
	}
	return r, nil
}

func (r *Recording) flush(ctx context.Context, every time.Duration) {
	defer r.wg.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
			r.store(ctx)
		}
	}
}

// store appends the points and events sampled since the last flush. The
// session forgets them once taken, so memory stays bounded over a run of days
// and a killed run keeps them; a failed append is not fatal: they are kept
// and tried again, or written by Finish.
func (r *Recording) store(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	pts, evs := r.sess.Take()
	pts, evs = append(r.unstored, pts...), append(r.unstoredEvents, evs...)
	if err := r.st.AppendSamples(ctx, r.run.ID, pts, evs); err != nil {
		r.unstored, r.unstoredEvents = pts, evs
		return
	}
	r.unstored, r.unstoredEvents = nil, nil
}

// AddInterval takes one interval of the workload's series: it is merged
// into the current hour's histograms, and its rows join the stored series.
// When it begins a new hour, the hour it closes is stored in the background;
// so are the series' rows every few seconds. errorCounter names the
// snapshot's counter of failed transactions. recorder.Run hands it to the
// workload (workload.RunOptions.OnInterval); it is called from one goroutine, before
// Finish.
func (r *Recording) AddInterval(snap *metrics.Snapshot, errorCounter string) {
	closed, err := r.hours.add(snap)
	if err != nil && r.hourErr == nil {
		r.hourErr = err
	}
	ready := r.series.add(snap, errorCounter)
	if len(closed) == 0 && len(ready) == 0 {
		return
	}
	r.writes.Add(1)
	go func() {
		defer r.writes.Done()
		r.mu.Lock()
		defer r.mu.Unlock()
		if err := r.st.AppendHours(r.ctx, r.run.ID, closed); err != nil {
			r.unstoredHours = append(r.unstoredHours, closed...)
		}
		if err := r.st.AppendSeries(r.ctx, r.run.ID, ready); err != nil {
			r.unstoredSeries = append(r.unstoredSeries, ready...)
		}
	}()
}

// Finish stops the collectors and stores the whole run with status in one
// transaction. It works after ctx was cancelled (Ctrl-C): the final write gets
// a context of its own, so an interrupted run is stored as interrupted rather
// than left half-written.
func (r *Recording) Finish(ctx context.Context, status store.Status) (string, error) {
	close(r.stop)
	r.wg.Wait()
	if r.sess != nil {
		samples, err := r.sess.Stop()
		if samples != nil {
			// The final write adds only what the flusher has not stored.
			samples.Points = append(r.unstored, samples.Points...)
			samples.Events = append(r.unstoredEvents, samples.Events...)
		}
		r.run.Samples = samples
		if err != nil {
			r.run.Notes = append(r.run.Notes, "collector: "+err.Error())
		}
	}
	if r.run.EndedAt.IsZero() {
		r.run.EndedAt = time.Now()
	}
	// The final write adds the hours not stored yet and the last, partial
	// one, and the series' rows not stored yet.
	r.writes.Wait()
	last, err := r.hours.take()
	if err != nil && r.hourErr == nil {
		r.hourErr = err
	}
	r.run.Hourly = append(append(r.run.Hourly, r.unstoredHours...), last...)
	if r.hourErr != nil {
		r.run.Notes = append(r.run.Notes, "hourly latency incomplete: "+r.hourErr.Error())
	}
	if r.series.streamed {
		r.run.Series = append(r.unstoredSeries, r.series.finish(r.run.Series)...)
		r.run.SeriesAppended = true
	}
	r.run.Status = status
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	r.mu.Lock()
	defer r.mu.Unlock()
	defer r.st.Close()
	if err := r.st.Finish(wctx, r.run); err != nil {
		return r.run.ID, err
	}
	return r.run.ID, nil
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
