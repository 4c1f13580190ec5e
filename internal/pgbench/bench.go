package pgbench

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// bench connects the clients, runs them, and gathers their results as
// pgbench's main does after its threads end.
func (e *engine) bench(ctx context.Context) (*Results, error) {
	o := e.o
	e.start = time.Now()
	e.epochStartUs = e.start.UnixMicro()
	if o.Rate > 0 {
		e.throttleDelay = 1e6 / o.Rate * float64(o.Jobs)
	}
	if o.Log {
		for _, t := range e.threads {
			if err := e.openTxLog(t, e.epochStartUs); err != nil {
				return nil, err
			}
		}
	}
	if !o.Connect {
		if err := e.connectAll(ctx); err != nil {
			return nil, err
		}
	}
	benchStart := e.nowUs()
	for _, t := range e.threads {
		t.trigger = benchStart
	}
	if o.Duration > 0 {
		e.endUs = benchStart + int64(o.Duration)*1000000
		timer := time.AfterFunc(time.Duration(e.endUs)*time.Microsecond-time.Since(e.start), e.stopClient)
		defer timer.Stop()
	}
	progressDone := e.startProgress(benchStart)
	e.runLoops(ctx, e.blockingConns())
	end := e.nowUs()
	progressDone()
	for _, t := range e.threads {
		if t.log != nil {
			if err := t.log.close(e.epochStartUs + end); err != nil {
				e.log.error("could not write logfile: %v", err)
			}
		}
	}
	r := e.results()
	r.BenchDurationUs = end - benchStart
	r.ConnElapsedUs = benchStart
	return r, nil
}

// connectAll opens every client's connection before the run, concurrently
// as pgbench's threads do; a failure ends pgbench with exit 1.
func (e *engine) connectAll(ctx context.Context) error {
	errs := make([]error, len(e.clients))
	var wg sync.WaitGroup
	for _, t := range e.threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, c := range t.clients {
				if errs[c.id] = c.connect(ctx); errs[c.id] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			for _, c := range e.clients {
				c.disconnect()
			}
			return e.log.fatal("could not create connection for client %d", i)
		}
	}
	return nil
}

// blockingConns says whether connections may not be plain sockets (TLS),
// whose reads block: then each client gets a loop of its own.
func (e *engine) blockingConns() bool {
	if e.o.Connect {
		return e.cfg.TLSConfig != nil
	}
	for _, c := range e.clients {
		if c.conn != nil && c.conn.nc != nil {
			return true
		}
	}
	return false
}

// stopClient ends -T: no client starts another transaction.
func (e *engine) stopClient() {
	e.stopOnce.Do(func() {
		e.stop.Store(true)
	})
}

// results sums the clients' measures.
func (e *engine) results() *Results {
	r := &Results{Options: e.o, Table: e.table, Scripts: make([]ScriptStats, len(e.scripts))}
	for i, s := range e.scripts {
		r.Scripts[i].Commands = make([]CommandStats, len(s.Commands))
		for j, cmd := range s.Commands {
			r.Scripts[i].Commands[j].FirstLine = cmd.FirstLine
		}
	}
	for _, c := range e.clients {
		c.mu.Lock()
		mergeStats(&r.Total, c.stats)
		for i := range r.Scripts {
			mergeStats(&r.Scripts[i].Stats, c.scripts[i].Stats)
			for j := range r.Scripts[i].Commands {
				dst, src := &r.Scripts[i].Commands[j], c.scripts[i].Commands[j]
				dst.Latency.Merge(src.Latency)
				dst.Failures += src.Failures
				dst.Retries += src.Retries
			}
		}
		r.LatencyLate += c.late
		r.ConnTotalUs += c.connUs
		r.Aborted = r.Aborted || c.aborted
		c.mu.Unlock()
	}
	return r
}

func mergeStats(dst *Stats, src Stats) {
	dst.Count += src.Count
	dst.Skipped += src.Skipped
	dst.Retries += src.Retries
	dst.Retried += src.Retried
	dst.SerializationFailures += src.SerializationFailures
	dst.DeadlockFailures += src.DeadlockFailures
	dst.Latency.Merge(src.Latency)
	dst.Lag.Merge(src.Lag)
}

// startProgress prints -P's lines every interval until the returned
// function is called.
func (e *engine) startProgress(benchStart int64) func() {
	o := e.o
	if o.Progress <= 0 {
		return func() {}
	}
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var last Stats
		lastUs := benchStart
		interval := int64(o.Progress) * 1000000
		for next := benchStart + interval; ; next += interval {
			select {
			case <-quit:
				return
			case <-time.After(time.Duration(next-e.nowUs()) * time.Microsecond):
			}
			now := e.nowUs()
			cur := e.results().Total
			e.printf("%s\n", ProgressLine(Progress{Now: cur, Last: last, NowUs: now, LastUs: lastUs, StartUs: benchStart,
				NowEpochUs: e.epochStartUs + now, Timestamp: o.ProgressTimestamp, Throttled: o.Rate > 0,
				LatencyLim: o.LatencyLimitUs > 0, RetriesShow: o.MaxTries != 1}))
			last, lastUs = cur, now
		}
	}()
	return func() { close(quit); <-done }
}

var _ = fmt.Sprint
