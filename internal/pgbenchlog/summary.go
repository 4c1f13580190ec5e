package pgbenchlog

import (
	"fmt"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/metrics"
)

// The counters of each script in a summary's snapshots.
const (
	CounterFailed  = "failed"
	CounterSkipped = "skipped"
	CounterRetries = "retries"
)

var counterNames = []string{CounterFailed, CounterSkipped, CounterRetries}

// Options say how to read a log.
type Options struct {
	// Scripts names the scripts by script_no (pgbench's "SQL script N" is
	// script_no N-1); nil reads the log once more to count them, and names
	// them "script 1", "script 2", ...
	Scripts []string
	Fields  Fields
	// OnSecond, if set, gets each second's snapshot as it closes (it must
	// not keep it): how a recording stores every second of a long run.
	OnSecond func(*metrics.Snapshot)
}

// Summary is what a log says about its run.
type Summary struct {
	Total  *metrics.Snapshot // the whole run, one histogram per script (µs)
	Series *metrics.Series   // per second, by completion time
	// Start is when the first transaction started, End when the last ended.
	Start, End                          time.Time
	Committed, Failed, Skipped, Retries int64
}

// TPS is committed transactions per second between the first start and the
// last end: what pgbench's "tps =" line says, from the log.
func (s *Summary) TPS() float64 {
	d := s.End.Sub(s.Start).Seconds()
	if d <= 0 {
		return 0
	}
	return float64(s.Committed) / d
}

// Summarize reads the log into a summary.
func Summarize(l Log, opts Options) (*Summary, error) {
	scripts := opts.Scripts
	if len(scripts) == 0 {
		n, err := countScripts(l, opts.Fields)
		if err != nil {
			return nil, err
		}
		for i := range n {
			scripts = append(scripts, fmt.Sprintf("script %d", i+1))
		}
	}
	b := &builder{kinds: scripts, onSecond: opts.OnSecond, sum: &Summary{}}
	b.sum.Total = b.emptySnapshot(time.Time{}, time.Time{})
	if err := l.Each(opts.Fields, b.add); err != nil {
		return nil, err
	}
	if b.sum.Series == nil {
		return nil, fmt.Errorf("%s.%d: the log holds no transaction", l.Prefix, l.PID)
	}
	if b.sum.End.Before(b.second.End) {
		b.second.End = b.sum.End // the last second is as long as the run lasted in it
	}
	b.closeSecond()
	b.sum.Total.Start, b.sum.Total.End = b.sum.Start, b.sum.End
	return b.sum, nil
}

// countScripts reads the log for its highest script_no.
func countScripts(l Log, fields Fields) (int, error) {
	n := 0
	err := l.Each(fields, func(t Txn) error {
		n = max(n, t.Script+1)
		return nil
	})
	return n, err
}

// builder turns transactions in completion order into seconds.
type builder struct {
	kinds    []string
	onSecond func(*metrics.Snapshot)
	sum      *Summary
	second   *metrics.Snapshot // the second being filled
}

func (b *builder) emptySnapshot(start, end time.Time) *metrics.Snapshot {
	n := len(b.kinds)
	s := &metrics.Snapshot{Kinds: b.kinds, CounterNames: counterNames, Start: start, End: end,
		Hists: make([]*hdrhistogram.Histogram, n), Clamped: make([]int64, n), Counters: make([][]int64, n)}
	for k := range n {
		s.Hists[k] = metrics.NewHistogram()
		s.Counters[k] = make([]int64, len(counterNames))
	}
	return s
}

// add puts one transaction into its second, closing the seconds before it.
func (b *builder) add(t Txn) error {
	if t.Script >= len(b.kinds) {
		return fmt.Errorf("script_no %d, but the run had %d scripts", t.Script, len(b.kinds))
	}
	sec := t.End.Truncate(time.Second)
	if b.sum.Series == nil {
		b.sum.Start = t.Start()
		b.sum.Series = &metrics.Series{Kinds: b.kinds, CounterNames: counterNames, Start: minTime(sec, b.sum.Start.Truncate(time.Second))}
		b.second = b.emptySnapshot(sec, sec.Add(time.Second))
		for s := b.sum.Series.Start; s.Before(sec); s = s.Add(time.Second) {
			b.emit(b.emptySnapshot(s, s.Add(time.Second)))
		}
	}
	for sec.After(b.second.Start) { // a later second: close this one (and any empty ones between)
		b.closeSecond()
		b.second = b.emptySnapshot(b.second.End, b.second.End.Add(time.Second))
	}
	b.record(t)
	return nil
}

// record counts t in the current second and the run (a line a little out
// of order counts in the current second).
func (b *builder) record(t Txn) {
	s, k := b.second, t.Script
	switch t.Outcome {
	case Committed:
		us := max(t.Latency.Microseconds(), metrics.LowestMicros)
		if us > metrics.HighestMicros {
			s.Clamped[k]++
			us = metrics.HighestMicros
		}
		_ = s.Hists[k].RecordValue(us)
		b.sum.Committed++
	case Skipped:
		s.Counters[k][1]++
		b.sum.Skipped++
	default:
		s.Counters[k][0]++
		b.sum.Failed++
	}
	s.Counters[k][2] += t.Retries
	b.sum.Retries += t.Retries
	b.sum.Start = minTime(b.sum.Start, t.Start())
	if t.End.After(b.sum.End) {
		b.sum.End = t.End
	}
}

// closeSecond adds the current second to the series and the total.
func (b *builder) closeSecond() {
	b.sum.Total.Merge(b.second)
	b.emit(b.second)
}

func (b *builder) emit(s *metrics.Snapshot) {
	b.sum.Series.Add(s, true)
	if b.onSecond != nil {
		b.onSecond(s)
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
