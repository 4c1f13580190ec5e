package tpcc

import (
	"fmt"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/measure"
	"github.com/pgoltp/pgoltp/internal/metrics"
)

// aggregator folds the drained intervals of one schema (or of all of them,
// merged) into the per-second series, the measured total (after ramp-up),
// and, when it is the run's own, the live progress line and the OnSecond
// hook. It runs on the Run goroutine only.
type aggregator struct {
	opts           RunOptions // Progress, ProgressOut and OnSecond cleared on a schema's own when several run
	rec            *metrics.Recorder
	timeLeft       func(elapsed time.Duration) string // --stop-at-txns estimate for the live line
	res            *RunResult
	start, rampEnd time.Time
	series         *metrics.Series
	total          *metrics.Snapshot // measured interval only
	all            *metrics.Snapshot // including ramp-up, for cumulative counts
	prog           *metrics.Snapshot // since the last progress line
	lastProg       time.Time
	first, last    time.Time // the measured window
}

func newAggregator(opts RunOptions, rec *metrics.Recorder, timeLeft func(time.Duration) string, res *RunResult, start, rampEnd time.Time) *aggregator {
	return &aggregator{opts: opts, rec: rec, timeLeft: timeLeft, res: res, start: start, rampEnd: rampEnd,
		series: metrics.NewSeries(rec, start), total: rec.EmptySnapshot(),
		all: rec.EmptySnapshot(), prog: rec.EmptySnapshot(), lastProg: start}
}

// tally drains every schema's recorder at the same instants (one clock), so
// that all schemas share one measured window: their rates add up to the
// merged rate, and the merged histograms are exactly the merge of theirs.
type tally struct {
	schemas []*schemaRun
	own     []*aggregator // one per schema
	merged  *aggregator   // nil with one schema
	hammer  *hammerDBSampler
}

// newTally starts the first interval of every schema now.
func newTally(schemas []*schemaRun, merged *RunResult, start, rampEnd time.Time) *tally {
	t := &tally{schemas: schemas, hammer: &hammerDBSampler{schemas: schemas, rampEnd: rampEnd}}
	for _, p := range schemas {
		opts := p.r.opts
		if merged != nil {
			opts.Progress, opts.ProgressOut, opts.OnSecond = 0, nil, nil
		}
		t.own = append(t.own, newAggregator(opts, p.r.rec, p.r.budget.TimeLeft, p.res, start, rampEnd))
	}
	if merged != nil {
		t.merged = newAggregator(merged.Options, schemas[0].r.rec, t.timeLeft, merged, start, rampEnd)
	}
	first := t.take()
	t.hammer.maybeStart(first[0].End)
	return t
}

// take drains every schema's recorder, stamping all snapshots with the first
// one's window: the shared clock.
func (t *tally) take() []*metrics.Snapshot {
	snaps := make([]*metrics.Snapshot, len(t.schemas))
	for i, p := range t.schemas {
		snaps[i] = p.r.rec.Interval()
	}
	for _, s := range snaps[1:] {
		s.Start, s.End = snaps[0].Start, snaps[0].End
	}
	return snaps
}

// merge adds the schemas' snapshots of one interval into one (nil with one schema).
func (t *tally) merge(snaps []*metrics.Snapshot) *metrics.Snapshot {
	if t.merged == nil {
		return nil
	}
	m := t.merged.rec.EmptySnapshot()
	for _, s := range snaps {
		m.Merge(s)
	}
	m.Start, m.End = snaps[0].Start, snaps[0].End
	return m
}

// interval handles one drained interval; final marks the one taken when the
// terminals have stopped.
func (t *tally) interval(final bool) {
	snaps := t.take()
	if final {
		t.hammer.end()
	} else {
		t.hammer.maybeStart(snaps[0].End)
	}
	for i, a := range t.own {
		a.interval(snaps[i], final)
	}
	if m := t.merge(snaps); m != nil {
		t.merged.interval(m, final)
	}
}

// drainDeliveries takes the last interval, after the queued Deliveries ran.
func (t *tally) drainDeliveries() {
	snaps := t.take()
	for i, a := range t.own {
		a.drainDeliveries(snaps[i])
	}
	if m := t.merge(snaps); m != nil {
		t.merged.drainDeliveries(m)
	}
}

// finish computes every result; the merged one's audits are the schemas'
// own, each over its own database.
func (t *tally) finish() {
	t.hammer.noteErrors()
	for _, a := range t.own {
		a.finish()
	}
	if t.merged == nil {
		return
	}
	t.hammer.merge(&t.merged.res.Others)
	t.merged.finish()
	mergeVerdicts(t.merged.res)
}

// timeLeft is the --stop-at-txns estimate of the schema furthest from its end.
func (t *tally) timeLeft(elapsed time.Duration) string {
	var slowest *measure.Budget
	for _, p := range t.schemas {
		b := p.r.budget
		if b == nil {
			continue
		}
		if slowest == nil || float64(b.Taken())/float64(b.Limit()) < float64(slowest.Taken())/float64(slowest.Limit()) {
			slowest = b
		}
	}
	return slowest.TimeLeft(elapsed)
}

// interval handles one drained interval; final marks the one taken when the
// terminals have stopped.
func (a *aggregator) interval(snap *metrics.Snapshot, final bool) {
	// Intervals are one second from the start; one that began (within
	// rounding) at or after the end of ramp-up is measured.
	measured := !snap.Start.Before(a.rampEnd.Add(-100 * time.Millisecond))
	p := a.series.Add(snap, measured)
	a.all.Merge(snap)
	if measured {
		a.total.Merge(snap)
		if a.first.IsZero() {
			a.first = snap.Start
		}
		a.last = snap.End
	}
	a.prog.Merge(snap)
	if h := a.opts.OnSecond; h != nil {
		minutes := p.Length.Minutes()
		sec := Second{Elapsed: p.Elapsed, Measured: measured, Point: p, Interval: snap}
		if minutes > 0 {
			sec.TpmC = float64(p.Counts[kindNewOrder]) / minutes
			sec.TpmTotal = float64(dealtCount(snap)) / minutes
		}
		h(sec)
	}
	if out := a.opts.ProgressOut; out != nil && a.opts.Progress > 0 && !final &&
		snap.End.Sub(a.lastProg) >= a.opts.Progress-100*time.Millisecond {
		fmt.Fprintln(out, a.progressLine(snap.End, measured))
		a.prog = a.rec.EmptySnapshot()
		a.lastProg = snap.End
	}
}

// drainDeliveries takes the last interval, after the queued Deliveries were
// executed: it counts in the totals but does not stretch the measured window.
func (a *aggregator) drainDeliveries(snap *metrics.Snapshot) {
	measured := !a.first.IsZero()
	a.series.Add(snap, measured)
	a.all.Merge(snap)
	if measured {
		a.total.Merge(snap)
	}
}

func dealtCount(s *metrics.Snapshot) int64 {
	var n int64
	for k := 0; k < numDealt; k++ {
		n += s.Count(k)
	}
	return n
}

func (a *aggregator) progressLine(now time.Time, measured bool) string {
	window := now.Sub(a.lastProg).Minutes()
	figures := []driver.Figure{
		{Name: "tpmC", Value: float64(a.prog.Count(kindNewOrder)) / window},
		{Name: "tpmTOTAL", Value: float64(dealtCount(a.prog)) / window},
	}
	lat := make([]driver.KindLatency, 0, numDealt)
	for k := 0; k < numDealt; k++ {
		lat = append(lat, driver.KindLatency{Short: kinds[k].short, P95: a.prog.Percentile(k, 95), Count: a.prog.Count(k)})
	}
	note := ""
	if !measured {
		note = "(ramp-up)"
	}
	if left := a.timeLeft(now.Sub(a.start)); left != "" {
		note = strings.TrimSpace(note + " " + left)
	}
	return driver.ProgressLine(now.Sub(a.start), figures, lat, a.all.CounterTotal(cntErrors), a.all.CounterTotal(cntRetries), note)
}

// finish computes the result from the measured totals.
func (a *aggregator) finish() {
	res, opts := a.res, a.opts
	res.Start, res.MeasureStart, res.MeasureEnd = a.start, a.first, a.last
	res.Series = a.series
	res.Total = a.total
	res.Histograms = a.total.Export()
	if !a.first.IsZero() {
		res.Measured = a.last.Sub(a.first)
	}
	minutes := res.Measured.Minutes()
	t := a.total
	if minutes > 0 {
		res.TpmC = float64(t.Count(kindNewOrder)) / minutes
		res.TpmTotal = float64(dealtCount(t)) / minutes
		res.NOPM = float64(t.Count(kindNewOrder)-t.Counter(kindNewOrder, cntRollbacks)) / minutes
	}
	if !a.last.IsZero() {
		res.Others.compute(res.Measured, a.last.Sub(a.start), a.all.Count(kindNewOrder), dealtCount(a.all))
	}
	res.MaxTpmCPerWarehouse = MaxTpmCPerWarehouse(opts.Weights, opts.KeyingScale)
	if opts.Mode == ModeSpec && res.MaxTpmCPerWarehouse > 0 {
		res.Efficiency = 100 * res.TpmC / (res.MaxTpmCPerWarehouse * float64(homeCount(opts)))
	}
	for k := 0; k < numKinds; k++ {
		sum := t.Summary(k)
		tr := TxnResult{
			Name: kinds[k].name, Count: sum.Count, Latency: sum,
			Errors: a.all.Counter(k, cntErrors), Retries: a.all.Counter(k, cntRetries),
			Rollbacks: t.Counter(k, cntRollbacks), LostConnection: a.all.Counter(k, cntLost),
			P90Limit: kinds[k].p90,
		}
		tr.P90OK = sum.Count == 0 || sum.P90 <= tr.P90Limit
		res.Txns = append(res.Txns, tr)
		res.ErrorsTotal += tr.Errors
		res.Retries += tr.Retries
	}
	res.Rollbacks = t.Counter(kindNewOrder, cntRollbacks)
	res.OrderStatusMismatches = a.all.Counter(kindOrderStatus, cntOSMismatch)
	// The measured window, as the table beside it and the 2.7.4.2 audit.
	res.Deliveries = DeliveryStats{
		Queued:            t.Count(kindDelivery),
		Completed:         t.Count(kindDeliveryDeferred),
		SkippedDistricts:  t.Counter(kindDeliveryDeferred, cntSkipped),
		SkippedDeliveries: t.Counter(kindDeliveryDeferred, cntSkippedDeliveries),
		NotCompleted:      res.DeliveriesNotCompleted,
		P90Completion:     t.Percentile(kindDeliveryDeferred, 90),
	}
	for _, o := range res.Outages {
		if !o.Restored.IsZero() {
			res.Reconnects++
		}
	}
	if n := dealtCount(a.all); n > 0 {
		res.DriverCPUPer1k = res.DriverCPU.Seconds() / (float64(n) / 1000)
	}
	res.Audits = audit(t, res.LoadedWarehouses)
	res.MixCompliant = MixMeetsMinimum(opts.Weights)
	res.NonCompliant = departures(opts, res.Measured, res.Txns, res.Audits)
	res.Compliance = compliance(res.NonCompliant)
}

// homeCount is how many home warehouses the run drives.
func homeCount(o RunOptions) int {
	_, n := o.homes()
	return n
}
