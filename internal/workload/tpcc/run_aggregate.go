package tpcc

import (
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/measure"
	"github.com/pgoltp/pgoltp/internal/metrics"
)

// aggregator is one result's measurement (one schema's, or all of them
// merged): the run's measure.Meter, with the live progress line and the
// OnSecond hook when it is the run's own, and the TPC-C figures it finishes
// into the result. It runs on the Run goroutine only.
type aggregator struct {
	opts  RunOptions // Progress, ProgressOut and OnSecond cleared on a schema's own when several run
	meter *measure.Meter
	res   *RunResult
}

// newAggregator measures res from start; intervals that begin before
// rampEnd are ramp-up. budgets give the live line its --stop-at-txns estimate.
func newAggregator(opts RunOptions, rec *metrics.Recorder, budgets []*measure.Budget, res *RunResult, start, rampEnd time.Time) *aggregator {
	mo := measure.Options{Ramp: rampEnd.Sub(start), Budgets: budgets,
		Progress: opts.Progress, ProgressOut: opts.ProgressOut, ProgressLine: progressLine}
	if h := opts.OnSecond; h != nil {
		mo.OnInterval = func(iv measure.Interval) { h(secondOf(iv)) }
	}
	return &aggregator{opts: opts, meter: measure.New(rec, start, mo), res: res}
}

// secondOf is one interval for OnSecond, with its TPC-C rates.
func secondOf(iv measure.Interval) Second {
	p := iv.Point
	sec := Second{Elapsed: p.Elapsed, Measured: iv.Measured, Point: p, Interval: iv.Snap}
	if minutes := p.Length.Minutes(); minutes > 0 {
		sec.TpmC = float64(p.Counts[kindNewOrder]) / minutes
		sec.TpmTotal = float64(dealtCount(iv.Snap)) / minutes
	}
	return sec
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
		t.own = append(t.own, newAggregator(opts, p.r.rec, []*measure.Budget{p.r.budget}, p.res, start, rampEnd))
	}
	if merged != nil {
		var budgets []*measure.Budget
		for _, p := range schemas {
			budgets = append(budgets, p.r.budget)
		}
		t.merged = newAggregator(merged.Options, schemas[0].r.rec, budgets, merged, start, rampEnd)
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
	m := t.schemas[0].r.rec.EmptySnapshot()
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

// interval handles one drained interval; final marks the one taken when the
// terminals have stopped.
func (a *aggregator) interval(snap *metrics.Snapshot, final bool) { a.meter.Add(snap, final) }

// drainDeliveries takes the last interval, after the queued Deliveries were
// executed: it counts in the totals but does not stretch the measured window.
func (a *aggregator) drainDeliveries(snap *metrics.Snapshot) { a.meter.Drain(snap) }

func dealtCount(s *metrics.Snapshot) int64 {
	var n int64
	for k := 0; k < numDealt; k++ {
		n += s.Count(k)
	}
	return n
}

// progressLine is the live line: tpmC and tpmTOTAL since the last line, the
// p95 of each kind, and the errors and retries of the whole run so far.
func progressLine(p measure.Progress) string {
	window := p.Window.Minutes()
	figures := []driver.Figure{
		{Name: "tpmC", Value: float64(p.Since.Count(kindNewOrder)) / window},
		{Name: "tpmTOTAL", Value: float64(dealtCount(p.Since)) / window},
	}
	lat := make([]driver.KindLatency, 0, numDealt)
	for k := 0; k < numDealt; k++ {
		lat = append(lat, driver.KindLatency{Short: kinds[k].short, P95: p.Since.Percentile(k, 95), Count: p.Since.Count(k)})
	}
	note := ""
	if !p.Measured {
		note = "(ramp-up)"
	}
	if p.TimeLeft != "" {
		note = strings.TrimSpace(note + " " + p.TimeLeft)
	}
	return driver.ProgressLine(p.Elapsed, figures, lat, p.All.CounterTotal(cntErrors), p.All.CounterTotal(cntRetries), note)
}

// finish computes the result from the measured totals.
func (a *aggregator) finish() {
	res, opts, m := a.res, a.opts, a.meter
	res.Start, res.MeasureStart, res.MeasureEnd = m.Start(), m.MeasureStart(), m.MeasureEnd()
	res.Series = m.Series()
	res.Total = m.Total()
	res.Histograms = res.Total.Export()
	res.Measured = m.Measured()
	minutes := res.Measured.Minutes()
	t, all := m.Total(), m.All()
	if minutes > 0 {
		res.TpmC = float64(t.Count(kindNewOrder)) / minutes
		res.TpmTotal = float64(dealtCount(t)) / minutes
		res.NOPM = float64(t.Count(kindNewOrder)-t.Counter(kindNewOrder, cntRollbacks)) / minutes
	}
	if !m.MeasureEnd().IsZero() {
		res.Others.compute(res.Measured, m.MeasureEnd().Sub(m.Start()), all.Count(kindNewOrder), dealtCount(all))
	}
	res.MaxTpmCPerWarehouse = MaxTpmCPerWarehouse(opts.Weights, opts.KeyingScale)
	if opts.Mode == ModeSpec && res.MaxTpmCPerWarehouse > 0 {
		res.Efficiency = 100 * res.TpmC / (res.MaxTpmCPerWarehouse * float64(homeCount(opts)))
	}
	for k := 0; k < numKinds; k++ {
		sum := t.Summary(k)
		tr := TxnResult{
			Name: kinds[k].name, Count: sum.Count, Latency: sum,
			Errors: all.Counter(k, cntErrors), Retries: all.Counter(k, cntRetries),
			Rollbacks: t.Counter(k, cntRollbacks), LostConnection: all.Counter(k, cntLost),
			P90Limit: kinds[k].p90,
		}
		tr.P90OK = sum.Count == 0 || sum.P90 <= tr.P90Limit
		res.Txns = append(res.Txns, tr)
		res.ErrorsTotal += tr.Errors
		res.Retries += tr.Retries
	}
	res.Rollbacks = t.Counter(kindNewOrder, cntRollbacks)
	res.OrderStatusMismatches = all.Counter(kindOrderStatus, cntOSMismatch)
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
	if n := dealtCount(all); n > 0 {
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
