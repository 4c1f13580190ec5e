package tpcc

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/field"
	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Consistency check after a run (Workload.CheckMode): the modes every
// workload takes; TPC-C's quick one skips the per-customer conditions.
const (
	CheckNone  = workload.CheckNone
	CheckQuick = workload.CheckQuick // skips the expensive per-customer conditions
	CheckFull  = workload.CheckFull
)

// Workload is TPC-C behind the workload interface: experiments, recorded runs
// and quickstart drive it through that; 'pgoltp tpcc' sets its options.
type Workload struct {
	Load      LoadOptions // for Prepare
	Options   RunOptions  // for Run; Duration is replaced by Run's d when d > 0
	CheckMode string      // CheckNone, CheckQuick (default) or CheckFull
}

// NewWorkload is TPC-C as experiments run it: a forced fresh load of
// warehouses, then no-wait runs (no keying or think time, so that throughput
// measures the server) over conns connections; Check is the quick one.
func NewWorkload(warehouses, conns int) *Workload {
	return &Workload{Load: LoadOptions{Warehouses: warehouses, Force: true},
		Options: RunOptions{Warehouses: warehouses, Conns: conns}, CheckMode: CheckQuick}
}

// updatedTables are the tables whose rows TPC-C updates in place: the ones a
// plain "fillfactor" layout option applies to.
var updatedTables = []string{"warehouse", "district", "customer", "stock"}

// Kind implements workload.Workload.
func (w *Workload) Kind() string { return "tpcc" }

// Name implements workload.Workload.
func (w *Workload) Name() string {
	o := w.Options
	path, mode := orDefault(o.Path, PathClient), orDefault(o.Mode, ModeNoWait)
	if len(o.Schemas) > 0 {
		return fmt.Sprintf("TPC-C %s/%s, %d schemas (%s), each %s warehouses, %s connections", path, mode,
			len(o.Schemas), o.schemaNames(), orAll(o.Warehouses), orAll(o.Conns))
	}
	return fmt.Sprintf("TPC-C %s/%s, %s warehouses, %s connections", path, mode, orAll(o.Warehouses), orAll(o.Conns))
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func orAll(n int) string {
	if n == 0 {
		return "default"
	}
	return strconv.Itoa(n)
}

// Validate checks the options and the check mode: the only place their
// ranges are checked.
func (w *Workload) Validate() error {
	switch w.CheckMode {
	case "", CheckNone, CheckQuick, CheckFull:
	default:
		return field.New("CheckMode", w.CheckMode, "unknown {} %q: use full, quick or none", w.CheckMode)
	}
	return w.Options.Validate()
}

// UpdatedTables are the tables TPC-C updates in place: the ones whose
// fillfactor `pgoltp tune --layout` searches.
func (w *Workload) UpdatedTables() []string { return append([]string(nil), updatedTables...) }

// LayoutOptions implements workload.LayoutOptions: "fillfactor" for the
// tables updated in place, or "fillfactor.TABLE" for one table.
func (w *Workload) LayoutOptions() []string {
	out := []string{"fillfactor"}
	for _, t := range TableNames() {
		out = append(out, "fillfactor."+t)
	}
	return out
}

// Prepare implements workload.Workload: a load with w.Load and the layout.
func (w *Workload) Prepare(ctx context.Context, dsn string, layout workload.Layout) error {
	opts := w.Load
	for k, v := range layout {
		ff, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s %q: must be a whole number from 10 to 100", k, v)
		}
		if opts.Fillfactor == nil {
			opts.Fillfactor = map[string]int{}
		}
		if table, ok := strings.CutPrefix(k, "fillfactor."); ok {
			opts.Fillfactor[table] = ff
			continue
		}
		for _, t := range updatedTables {
			if _, set := opts.Fillfactor[t]; !set {
				opts.Fillfactor[t] = ff
			}
		}
	}
	_, err := Load(ctx, dsn, opts)
	return err
}

// Ready says whether the database holds a complete load that the options
// fit, before anything is recorded: in every schema, when several are driven.
func (w *Workload) Ready(ctx context.Context, dsn string) error {
	if len(w.Options.Schemas) == 0 {
		return ready(ctx, dsn, &w.Options)
	}
	for _, s := range w.Options.Schemas {
		o := w.Options // each schema resolves its own defaults
		o.Schema, o.Schemas = s, nil
		if err := ready(ctx, dsn, &o); err != nil {
			return inSchema(err, s, w.Options.Schemas)
		}
	}
	return nil
}

func ready(ctx context.Context, dsn string, opts *RunOptions) error {
	cfg, err := ConnConfig(dsn, opts.Schema)
	if err != nil {
		return err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if opts.Pooled {
		if err := checkPooledDefaults(ctx, conn, *opts); err != nil {
			return err
		}
	}
	meta, err := ReadMeta(ctx, conn)
	if err != nil {
		return err
	}
	if !meta.Complete {
		return ErrNotComplete
	}
	return opts.Resolve(meta.Warehouses)
}

// Run implements workload.Workload. Transactions counts all five kinds; ×60
// of the New-Order share would be tpmC.
func (w *Workload) Run(ctx context.Context, dsn string, ro workload.RunOptions) (*workload.Result, error) {
	opts := w.Options
	if ro.Duration > 0 {
		opts.Duration = ro.Duration
	}
	if fn := ro.OnInterval; fn != nil {
		// Every interval of the series but the last drain of queued
		// Deliveries after the terminals stopped (no New-Order in it).
		onSecond := opts.OnSecond
		opts.OnSecond = func(s Second) {
			fn(s.Interval, errorCounter)
			if onSecond != nil {
				onSecond(s)
			}
		}
	}
	res, err := Run(ctx, dsn, opts)
	if res == nil {
		return nil, err
	}
	return res.Result(), err
}

// Result is the run in the terms every workload shares.
func (r *RunResult) Result() *workload.Result {
	out := &workload.Result{Detail: r, Series: r.Series, ErrorCounter: errorCounter, Latency: workload.LatencyOf(r.Total),
		MeasureStart: r.MeasureStart, MeasureEnd: r.MeasureEnd, End: r.End, Interrupted: r.Interrupted}
	out.Elapsed, out.Errors, out.PerSecond = r.Measured, r.ErrorsTotal, workload.PerSecondOf(r.Series)
	all := metrics.NewHistogram()
	if r.Total != nil {
		for _, h := range r.Total.Hists {
			all.Merge(h)
		}
	}
	out.Transactions = all.TotalCount()
	out.P50, out.P95, out.P99 = metrics.Percentile(all, 50), metrics.Percentile(all, 95), metrics.Percentile(all, 99)
	for _, p := range r.Params {
		out.Params = append(out.Params, workload.Param{Name: p[0], Value: p[1]})
	}
	out.Headline = r.headline()
	out.Notes = r.notes()
	out.Tallies = Tallies(r.Audits)
	out.Rate = workload.Rate{Figure: "tpmC", Type: kinds[kindNewOrder].name, Unit: "New-Orders/min", Per: time.Minute}
	return out
}

// SetStartGate implements workload.Gated.
func (w *Workload) SetStartGate(gate func(context.Context) error) { w.Options.StartGate = gate }

func (r *RunResult) headline() []workload.Figure {
	h := []workload.Figure{
		// Clause 5.4.4: tpmC is reported truncated; it counts rolled-back New-Orders (5.4.2).
		{Name: "tpmC", Value: math.Floor(r.TpmC), Unit: "New-Orders/min"},
		{Name: "tpmTOTAL", Value: r.TpmTotal, Unit: "txn/min"},
		{Name: "NOPM", Value: r.NOPM, Unit: "committed New-Orders/min"},
	}
	if r.Options.Mode == ModeSpec {
		h = append(h, workload.Figure{Name: "efficiency", Value: r.Efficiency, Unit: "%"})
	}
	h = append(h, r.Others.figures()...)
	h = append(h, workload.Figure{Name: "departures from TPC-C", Value: float64(len(r.NonCompliant)), Unit: "(0 = compliant)"})
	if no := r.Txn("new_order"); no.Count > 0 {
		h = append(h,
			workload.Figure{Name: "New-Order p90", Value: float64(no.Latency.P90) / float64(time.Millisecond), Unit: "ms"},
			workload.Figure{Name: "New-Order p99", Value: float64(no.Latency.P99) / float64(time.Millisecond), Unit: "ms"})
	}
	h = append(h,
		workload.Figure{Name: "errors", Value: float64(r.ErrorsTotal), Unit: "txn"},
		workload.Figure{Name: "retries", Value: float64(r.Retries), Unit: "txn"},
		workload.Figure{Name: "driver CPU", Value: r.DriverCPUPer1k, Unit: "CPU-s/1k txn"})
	return append(h, r.schemaHeadline()...)
}

func (r *RunResult) notes() []string {
	var notes []string
	var audits []workload.Verdict
	for _, a := range r.Audits {
		audits = append(audits, workload.Verdict{Status: a.Status, What: fmt.Sprintf("%s %s = %.3f (bounds %.3f..%.3f)", a.Clause, a.Name, a.Observed, a.Low, a.High)})
	}
	if len(audits) > 0 {
		notes = append(notes, workload.Summarize("input audits (TPC-C 5.11 clauses)", audits))
	}
	var times []workload.Verdict
	for _, t := range r.Txns {
		if t.Count == 0 {
			continue
		}
		status, what := "PASS", fmt.Sprintf("%s p90 %s (mean %s, limit %s)", t.Name,
			t.Latency.P90.Round(time.Microsecond), t.Latency.Mean.Round(time.Microsecond), t.P90Limit)
		if !t.P90OK {
			status = "FAIL"
		}
		times = append(times, workload.Verdict{Status: status, What: what})
	}
	if len(times) > 0 {
		notes = append(notes, workload.Summarize("response times (clause 5.2.5.3: 90th percentile within its limit)", times))
	}
	if r.Options.Reads.On() {
		notes = append(notes, readsNonCompliant)
	}
	notes = append(notes, r.Split.Lines()...)
	if len(r.NonCompliant) == 0 {
		notes = append(notes, "COMPLIANT with TPC-C 5.11 in everything the driver controls")
	}
	for _, n := range r.NonCompliant {
		notes = append(notes, "INDICATIVE, departs from TPC-C 5.11: "+n)
	}
	notes = append(notes, driver.OutageLines(r.Outages)...)
	if r.StopReason != "" {
		notes = append(notes, "stopped: "+r.StopReason)
	}
	return notes
}

// Unchecked: with CheckMode none the run is not checked, and nobody is
// told it is.
func (w *Workload) Unchecked() bool { return w.CheckMode == workload.CheckNone }

// Check implements workload.Workload: the consistency conditions after a run
// (quick or full, as CheckMode says; nil with CheckNone), in every schema
// the run drove.
func (w *Workload) Check(ctx context.Context, dsn string) (*workload.Check, error) {
	mode := orDefault(w.CheckMode, CheckQuick)
	if mode == CheckNone {
		return nil, nil
	}
	rep, err := Check(ctx, dsn, CheckOptions{Schema: w.Options.Schema, Schemas: w.Options.Schemas, Quick: mode == CheckQuick, Fresh: FreshNo})
	if err != nil {
		return nil, err
	}
	c := &workload.Check{Passed: rep.Passed, Detail: &rep,
		Headline: []workload.Figure{{Name: "consistency checks failed", Value: float64(len(rep.Failed())), Unit: "checks"}}}
	var vs []workload.Verdict
	for _, r := range rep.Results {
		vs = append(vs, workload.Verdict{Status: r.Status, What: fmt.Sprintf("%s (%s %s)", r.Name, r.Clause, r.Title)})
	}
	for _, f := range rep.Failed() {
		c.Failed = append(c.Failed, f.Name)
	}
	c.Note = workload.Summarize(fmt.Sprintf("consistency check (%s)", mode), vs)
	return c, nil
}
