package tpcb

import (
	"fmt"
	"time"

	"github.com/pgoltp/pgoltp/internal/measure"
	"github.com/pgoltp/pgoltp/internal/metrics"
)

// newMeter measures a run of def from start: one series point per
// SeriesEach of the transaction kind alone (the series is "transactions
// over time", and its consumers may sum its kinds), a histogram window of
// every kind per SnapshotEach, pgbench's -P line. Its memory grows with time
// up to bounds (metrics.MaxPoints series points, measure.MaxWindows
// windows; then neighbours merge), never with the number of transactions.
func newMeter(rec *metrics.Recorder, def *scriptDef, opts RunOptions, start time.Time) *measure.Meter {
	mo := measure.Options{Each: opts.SeriesEach, SeriesKinds: 1, WindowEach: opts.SnapshotEach,
		Progress: opts.Progress, ProgressOut: opts.Out, Budgets: []*measure.Budget{opts.budget},
		ProgressLine: func(p measure.Progress) string { return progressLine(p, def, opts) }}
	if fn := opts.OnInterval; fn != nil {
		mo.OnInterval = func(iv measure.Interval) { fn(iv.Snap) }
	}
	return measure.New(rec, start, mo)
}

// progressLine is pgbench's -P line.
func progressLine(p measure.Progress, def *scriptDef, opts RunOptions) string {
	s := p.Since
	h := s.Hists[kindTxn]
	line := fmt.Sprintf("progress: %.1f s, %.1f tps, lat %.3f ms stddev %.3f, %d failed",
		p.Elapsed.Seconds(), float64(h.TotalCount())/p.Window.Seconds(), h.Mean()/1000, h.StdDev()/1000,
		s.Counter(kindTxn, cntFailures))
	if opts.Rate > 0 {
		line += fmt.Sprintf(", lag %.3f ms", s.Hists[kindLag(def)].Mean()/1000)
		if opts.LatencyLimit > 0 {
			line += fmt.Sprintf(", %d skipped", s.Counter(kindTxn, cntSkipped))
		}
	}
	if opts.MaxTries != 1 {
		line += fmt.Sprintf(", %d retried, %d retries", s.Counter(kindTxn, cntRetried), s.Counter(kindTxn, cntRetries))
	}
	if p.TimeLeft != "" {
		line += ", " + p.TimeLeft
	}
	return line
}

// fillMeasures puts the meter's totals into res.
func (res *RunResult) fillMeasures(m *measure.Meter, def *scriptDef) {
	t := m.Total()
	res.Total, res.Series, res.Snapshots = t, m.Series(), m.Windows()
	res.Histograms = measure.Encode(t)
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
	if res.Options.Rate > 0 {
		lag := t.Summary(kindLag(def))
		res.Lag = &lag
	}
	for i, s := range def.stmts {
		k := kindStmt(i)
		res.Statements = append(res.Statements, StatementResult{Name: s.name, Text: s.text(),
			Latency: t.Summary(k), Failures: t.Counter(k, cntFailures), Retries: t.Counter(k, cntRetries)})
	}
}
