package tpcb

import (
	"fmt"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/metrics"
)

// aggregator drains the clients' recorders once per series interval into
// the per-interval series, the whole-run total, the current histogram
// window and the progress window. Its memory grows with time up to bounds
// (metrics.MaxPoints series points, maxSnapshots encoded snapshots; then
// neighbours merge), never with the number of transactions.
type aggregator struct {
	rec   *metrics.Recorder
	def   *scriptDef
	opts  RunOptions
	start time.Time

	series    *metrics.Series
	total     *metrics.Snapshot
	window    *metrics.Snapshot
	snapshots []HistogramSnapshot

	progress     *metrics.Snapshot
	lastProgress time.Time
}

func newAggregator(rec *metrics.Recorder, def *scriptDef, opts RunOptions, start time.Time) *aggregator {
	a := &aggregator{rec: rec, def: def, opts: opts, start: start,
		series: &metrics.Series{Kinds: rec.Kinds()[:1], CounterNames: rec.CounterNames(), Start: start}, total: rec.EmptySnapshot(),
		window: rec.EmptySnapshot(), progress: rec.EmptySnapshot(), lastProgress: start}
	a.total.Start, a.window.Start, a.progress.Start = start, start, start
	return a
}

func (a *aggregator) loop(stop <-chan struct{}) {
	t := time.NewTicker(a.opts.SeriesEach)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			a.absorb(a.rec.Interval(), false)
		case <-stop:
			a.absorb(a.rec.Interval(), true)
			return
		}
	}
}

func (a *aggregator) absorb(s *metrics.Snapshot, last bool) {
	txns := transactionsOnly(s)
	a.series.Add(txns, true)
	if a.opts.OnInterval != nil {
		a.opts.OnInterval(txns)
	}
	a.total.Merge(s)
	a.window.Merge(s)
	if last || s.End.Sub(a.window.Start) >= a.opts.SnapshotEach-a.opts.SeriesEach/2 {
		a.snapshots = keepSnapshot(a.snapshots, a.encodeWindow())
		a.window = a.rec.EmptySnapshot()
		a.window.Start = s.End
	}
	if a.opts.Progress > 0 && a.opts.Out != nil {
		mergeKind(a.progress, s, kindTxn)
		mergeKind(a.progress, s, kindLag(a.def))
		if !last && s.End.Sub(a.lastProgress) >= a.opts.Progress-a.opts.SeriesEach/2 {
			fmt.Fprintln(a.opts.Out, a.progressLine(s.End))
			a.progress = a.rec.EmptySnapshot()
			a.lastProgress = s.End
		}
	}
}

// transactionsOnly is a view of s with the transaction kind alone: the
// series is "transactions over time", and its consumers may sum its kinds.
func transactionsOnly(s *metrics.Snapshot) *metrics.Snapshot {
	return &metrics.Snapshot{Kinds: s.Kinds[:1], CounterNames: s.CounterNames, Start: s.Start, End: s.End,
		Hists: s.Hists[:1], Clamped: s.Clamped[:1], Counters: s.Counters[:1]}
}

// mergeKind merges only one kind's histogram and counters.
func mergeKind(dst, src *metrics.Snapshot, k int) {
	if src.Hists[k].TotalCount() > 0 {
		dst.Hists[k].Merge(src.Hists[k])
	}
	for c := range dst.Counters[k] {
		dst.Counters[k][c] += src.Counters[k][c]
	}
}

// progressLine is pgbench's -P line.
func (a *aggregator) progressLine(now time.Time) string {
	p := a.progress
	h := p.Hists[kindTxn]
	secs := now.Sub(a.lastProgress).Seconds()
	line := fmt.Sprintf("progress: %.1f s, %.1f tps, lat %.3f ms stddev %.3f, %d failed",
		now.Sub(a.start).Seconds(), float64(h.TotalCount())/secs, h.Mean()/1000, h.StdDev()/1000,
		p.Counter(kindTxn, cntFailures))
	if a.opts.Rate > 0 {
		line += fmt.Sprintf(", lag %.3f ms", p.Hists[kindLag(a.def)].Mean()/1000)
		if a.opts.LatencyLimit > 0 {
			line += fmt.Sprintf(", %d skipped", p.Counter(kindTxn, cntSkipped))
		}
	}
	if a.opts.MaxTries != 1 {
		line += fmt.Sprintf(", %d retried, %d retries", p.Counter(kindTxn, cntRetried), p.Counter(kindTxn, cntRetries))
	}
	if left := a.opts.budget.TimeLeft(now.Sub(a.start)); left != "" {
		line += ", " + left
	}
	return line
}

func (a *aggregator) encodeWindow() HistogramSnapshot {
	w := a.window
	hs := HistogramSnapshot{From: w.Start.Sub(a.start), To: w.End.Sub(a.start),
		Histograms: encodeAll(w), Summaries: map[string]metrics.LatencySummary{}}
	for k, name := range w.Kinds {
		hs.Summaries[name] = w.Summary(k)
	}
	return hs
}

// encodeAll encodes every non-empty histogram of s.
func encodeAll(s *metrics.Snapshot) map[string][]byte {
	m := map[string][]byte{}
	for k, name := range s.Kinds {
		if s.Hists[k].TotalCount() == 0 {
			continue
		}
		if b, err := s.Hists[k].Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
			m[name] = b
		}
	}
	return m
}

// fill puts the totals into res.
func (a *aggregator) fill(res *RunResult) {
	t := a.total
	res.Total, res.Series, res.Snapshots = t, a.series, a.snapshots
	res.Histograms = encodeAll(t)
	res.Committed = t.Count(kindTxn)
	res.Failed = t.Counter(kindTxn, cntFailures)
	res.Retried = t.Counter(kindTxn, cntRetried)
	res.Retries = t.Counter(kindTxn, cntRetries)
	res.Skipped = t.Counter(kindTxn, cntSkipped)
	res.Late = t.Counter(kindTxn, cntLate)
	if res.Elapsed > 0 {
		res.TPS = float64(res.Committed) / res.Elapsed.Seconds()
	}
	res.Latency = t.Summary(kindTxn)
	res.LatencyStddev = time.Duration(t.Hists[kindTxn].StdDev() * float64(time.Microsecond))
	if a.opts.Rate > 0 {
		lag := t.Summary(kindLag(a.def))
		res.Lag = &lag
	}
	for i, s := range a.def.stmts {
		k := kindStmt(i)
		res.Statements = append(res.Statements, StatementResult{Name: s.name, Text: s.text(),
			Latency: t.Summary(k), Failures: t.Counter(k, cntFailures), Retries: t.Counter(k, cntRetries)})
	}
}
