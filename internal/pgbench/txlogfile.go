package pgbench

import (
	"bufio"
	"fmt"
	"os"
	"sync"

	"github.com/pgoltp/pgoltp/internal/pgbench/lang"
)

// txLogFile is a thread's -l log: a line per transaction, or one per
// --aggregate-interval, sampled under --sampling-rate from the thread's
// sample generator, as pgbench's doLog.
type txLogFile struct {
	mu     sync.Mutex
	f      *os.File
	w      *bufio.Writer
	o      *Options
	sample *lang.PRNG
	agg    Stats  // the current interval, with --aggregate-interval
	line   []byte // the line being written, reused
}

// openTxLog opens thread t's log file: prefix.pid for thread 0, else
// prefix.pid.tid.
func (e *engine) openTxLog(t *thread, startEpochUs int64) error {
	path := fmt.Sprintf("%s.%d", e.o.LogPrefix, os.Getpid())
	if t.id > 0 {
		path += fmt.Sprintf(".%d", t.id)
	}
	f, err := os.Create(path)
	if err != nil {
		return e.log.fatal("could not open logfile \"%s\": %s", path, errnoText(err))
	}
	t.log = &txLogFile{f: f, w: bufio.NewWriter(f), o: e.o, sample: t.streams.Sample}
	t.log.agg.StartUs = startEpochUs / 1000000 * 1000000
	return nil
}

// transaction logs one finished transaction.
func (l *txLogFile) transaction(c *client, si int, epochUs int64, latency, lag float64, tries int, out outcome, skipped bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	o := l.o
	if o.SamplingRate != 0 && !lang.Sampled(l.sample, o.SamplingRate) {
		return
	}
	if o.AggregateInterval > 0 {
		l.flush(epochUs)
		addTx(&l.agg, skipped, latency, lag, out, tries, o.Rate > 0)
		return
	}
	e := TxLogEntry{Client: c.id, Transaction: c.txCount + 1, LatencyUs: latency, Script: si, EpochUs: epochUs, LagUs: lag, Retries: tries - 1}
	switch {
	case skipped:
		e.Result = "skipped"
	case out == succeeded:
	case !o.FailuresDetailed:
		e.Result = "failed"
	case out == serializationFailure:
		e.Result = "serialization"
	default:
		e.Result = "deadlock"
	}
	l.line = append(AppendTxLogLine(l.line[:0], e, o.Rate > 0, o.MaxTries != 1), '\n')
	l.w.Write(l.line)
}

// flush writes the intervals that ended by epochUs, empty ones included.
func (l *txLogFile) flush(epochUs int64) {
	o := l.o
	for next := l.agg.StartUs + int64(o.AggregateInterval)*1000000; next <= epochUs; next += int64(o.AggregateInterval) * 1000000 {
		l.w.WriteString(AggregateLogLine(l.agg, o.Rate > 0, o.LatencyLimitUs > 0, o.MaxTries != 1, o.FailuresDetailed))
		l.w.WriteByte('\n')
		l.agg = Stats{StartUs: next}
	}
}

// close writes the intervals that ended (pgbench does not write the last,
// unfinished one) and closes the file.
func (l *txLogFile) close(epochUs int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.o.AggregateInterval > 0 && (l.o.SamplingRate == 0 || lang.Sampled(l.sample, l.o.SamplingRate)) {
		l.flush(epochUs)
	}
	if err := l.w.Flush(); err != nil {
		l.f.Close()
		return err
	}
	return l.f.Close()
}
