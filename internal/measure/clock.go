package measure

import (
	"context"
	"sync"
	"time"
)

// Stop says why a run's clock stopped.
type Stop int

const (
	// StopDuration: ramp-up and the measured duration have passed.
	StopDuration Stop = iota
	// StopDone: the workers ended on their own (a count, a budget, errors).
	StopDone
	// StopInterrupted: ctx ended (Ctrl-C).
	StopInterrupted
)

// Wait calls tick once per interval of each until, when end > 0, end has
// passed since the call (ramp-up plus the measured duration), or done is
// closed, or ctx ends, and says which. It runs on the caller's goroutine.
func Wait(ctx context.Context, each, end time.Duration, done <-chan struct{}, tick func()) Stop {
	if each <= 0 {
		each = time.Second
	}
	t := time.NewTicker(each)
	defer t.Stop()
	var endC <-chan time.Time
	if end > 0 {
		endTimer := time.NewTimer(end)
		defer endTimer.Stop()
		endC = endTimer.C
	}
	for {
		select {
		case <-t.C:
			tick()
		case <-endC:
			return StopDuration
		case <-done:
			return StopDone
		case <-ctx.Done():
			return StopInterrupted
		}
	}
}

// Background ticks the meter on its own goroutine until the returned stop,
// which takes the final interval and waits for it: for engines whose own
// goroutines (an event loop) keep the run's clock.
func (m *Meter) Background() (stop func()) {
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		Wait(context.Background(), m.opts.Each, 0, quit, func() { m.Tick(false) })
		m.Tick(true)
		close(finished)
	}()
	return func() { close(quit); <-finished }
}

// Drive runs work(ctx, i) for workers 0..workers-1 on m's clock: it ticks m
// each interval until d has passed (d ≤ 0: until ctx ends) or every worker
// has returned, then cancels the workers' ctx, waits for them, and takes
// the final interval. It returns each worker's error, when the workers
// ended, and why the clock stopped. A workload whose workers are plain
// goroutines needs nothing else to be measured.
func (m *Meter) Drive(ctx context.Context, d time.Duration, workers int, work func(ctx context.Context, i int) error) (errs []error, end time.Time, stop Stop) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs = make([]error, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() { errs[i] = work(runCtx, i) })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	stop = Wait(ctx, m.opts.Each, d, done, func() { m.Tick(false) })
	cancel()
	<-done
	end = time.Now()
	m.Tick(true)
	return errs, end, stop
}
