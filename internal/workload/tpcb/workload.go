package tpcb

import (
	"context"
	"fmt"
	"github.com/pgoltp/pgoltp/internal/measure"
	"strconv"
	"time"

	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Workload is TPC-B behind the workload interface: experiments and recorded
// runs drive it through that; 'pgoltp tpcb' sets its options.
type Workload struct {
	Load    LoadOptions // for Prepare
	Options RunOptions  // for Run; Duration is replaced by Run's d when d > 0
	// CheckMode is the check after a run, as every workload takes it
	// (workload.CheckNone for 'tpcb run --no-check'; quick and full are the
	// same check here). It is not Options.NoCheck, which leaves out the
	// run's own before/after sums (experiments save those reads).
	CheckMode string

	last *RunResult // the last run, whose own check Check reports
}

// NewWorkload is TPC-B as experiments run it: a fresh pgbench -i equivalent
// at scale, then pgbench's TPC-B-like script over prepared statements from
// clients connections. Run does not check (experiments compare runs, they
// do not check them); Check checks the whole database.
func NewWorkload(scale, clients int) *Workload {
	return &Workload{Load: LoadOptions{Scale: scale},
		Options: RunOptions{Clients: clients, Protocol: ProtocolPrepared, NoCheck: true}}
}

// Kind implements workload.Workload.
func (w *Workload) Kind() string { return "tpcb" }

// Name implements workload.Workload.
func (w *Workload) Name() string {
	o := w.Options
	script, protocol := o.Script, o.Protocol
	if script == "" {
		script = ScriptTPCB
	}
	if protocol == "" {
		protocol = ProtocolSimple
	}
	if w.Load.Scale > 0 {
		return fmt.Sprintf("TPC-B %s scale %d, -c %d -M %s", script, w.Load.Scale, max(o.Clients, 1), protocol)
	}
	return fmt.Sprintf("TPC-B %s -c %d -j %d -M %s", script, max(o.Clients, 1), max(o.Jobs, 1), protocol)
}

// UpdatedTables are the tables TPC-B updates in place (pgbench's -F
// applies to them): the ones whose fillfactor `pgoltp tune --layout` searches.
func (w *Workload) UpdatedTables() []string {
	return []string{TableAccounts, TableTellers, TableBranches}
}

// LayoutOptions implements workload.LayoutOptions: pgbench's -F fillfactor.
func (w *Workload) LayoutOptions() []string { return []string{"fillfactor"} }

// Prepare implements workload.Workload: a fresh pgbench -i equivalent.
func (w *Workload) Prepare(ctx context.Context, dsn string, layout workload.Layout) error {
	opts := w.Load
	if v, ok := layout["fillfactor"]; ok {
		ff, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("fillfactor %q: must be a whole number from 10 to 100", v)
		}
		opts.Fillfactor = ff
	}
	_, err := Load(ctx, dsn, opts)
	return err
}

// Ready says whether the pgbench tables are there, before anything is recorded.
func (w *Workload) Ready(ctx context.Context, dsn string) error {
	_, err := Scale(ctx, dsn)
	return err
}

// Run implements workload.Workload.
func (w *Workload) Run(ctx context.Context, dsn string, ro workload.RunOptions) (*workload.Result, error) {
	opts := w.Options
	if ro.Duration > 0 {
		opts.Duration, opts.Transactions = ro.Duration, 0
	}
	if fn := ro.OnInterval; fn != nil && opts.OnInterval == nil {
		opts.OnInterval = func(s *metrics.Snapshot) { fn(s, counterNames[cntFailures]) }
	}
	res, err := Run(ctx, dsn, opts)
	w.last = res
	if res == nil {
		return nil, err
	}
	return res.Result(), err
}

// Result is the run in the terms every workload shares.
func (r *RunResult) Result() *workload.Result {
	o := r.Options
	out := &workload.Result{Detail: r, Series: r.Series, ErrorCounter: counterNames[cntFailures], Latency: workload.LatencyOf(r.Total),
		End: r.Start.Add(r.Elapsed), Interrupted: r.Interrupted}
	out.Transactions, out.Errors, out.Elapsed = r.Committed, r.Failed+int64(r.AbortedClients), r.Elapsed
	out.P50, out.P95, out.P99 = r.Latency.P50, r.Latency.P95, r.Latency.P99
	out.PerSecond = workload.PerSecondOf(r.Series)
	out.Params = []workload.Param{
		{Name: "workload", Value: "tpcb"},
		{Name: "script", Value: string(o.Script)},
		{Name: "scale", Value: strconv.Itoa(r.Scale)},
		{Name: "clients", Value: strconv.Itoa(o.Clients)},
		{Name: "jobs", Value: strconv.Itoa(o.Jobs)},
		{Name: "protocol", Value: string(o.Protocol)},
		{Name: "duration", Value: o.Duration.String()},
		{Name: "transactions per client", Value: strconv.Itoa(o.Transactions)},
		{Name: "stop at transactions", Value: strconv.FormatInt(o.StopAtTxns, 10)},
		{Name: "rate (tps)", Value: strconv.FormatFloat(o.Rate, 'f', -1, 64)},
		{Name: "latency limit", Value: o.LatencyLimit.String()},
		{Name: "max tries", Value: strconv.Itoa(o.MaxTries)},
		{Name: "isolation", Value: o.Isolation},
		{Name: "seed", Value: strconv.FormatUint(o.Seed, 10)},
	}
	out.Rate = workload.Rate{Figure: "TPS", Type: "transaction", Unit: "txn/s", Per: time.Second}
	if !o.Part.Whole() {
		out.Params = append(out.Params, workload.Param{Name: "part", Value: o.Part.String()}, workload.Param{Name: "branches", Value: r.Branches})
	}
	out.Headline = []workload.Figure{
		{Name: "TPS", Value: r.TPS, Unit: "txn/s"},
		{Name: "latency mean", Value: float64(r.Latency.Mean) / float64(time.Millisecond), Unit: "ms"},
		{Name: "latency p99", Value: float64(r.Latency.P99) / float64(time.Millisecond), Unit: "ms"},
		{Name: "committed", Value: float64(r.Committed), Unit: "txn"},
		{Name: "failed", Value: float64(r.Failed), Unit: "txn"},
		{Name: "retries", Value: float64(r.Retries), Unit: "txn"},
	}
	for _, o := range r.Outages {
		out.Notes = append(out.Notes, fmt.Sprintf("client %d lost its connection at %s for %s (%d reconnect attempts): %s",
			o.Conn, o.Lost.Format(time.TimeOnly), o.Duration().Round(time.Millisecond), o.Attempts, o.Error))
	}
	if r.InDoubt > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d transactions in doubt: in flight when their connection was lost", r.InDoubt))
	}
	out.Params = append(out.Params, r.Split.Params()...)
	out.Notes = append(out.Notes, r.Split.Lines()...)
	return out
}

// SetRatePhases makes the next run a step load (sweep --phases).
func (w *Workload) SetRatePhases(phases []measure.RatePhase) { w.Options.RatePhases = phases }

// SetStartGate implements workload.Gated.
func (w *Workload) SetStartGate(gate func(context.Context) error) { w.Options.StartGate = gate }

// Unchecked: with CheckMode none the run is not checked, and nobody is
// told it is.
func (w *Workload) Unchecked() bool { return w.CheckMode == workload.CheckNone }

// Check implements workload.Workload: the check the last run made of what it
// changed (balances and history moved together, one history row per commit);
// when the run made none, a check of the whole database; with CheckMode
// workload.CheckNone nil.
func (w *Workload) Check(ctx context.Context, dsn string) (*workload.Check, error) {
	if w.CheckMode == workload.CheckNone {
		return nil, nil
	}
	res := (*CheckResult)(nil)
	if w.last != nil {
		res = w.last.Check
	}
	if res == nil {
		var err error
		if res, err = Check(ctx, dsn, CheckOptions{SkipSomeUpdates: w.Options.Script == ScriptSimpleUpdate, ExpectHistory: -1}); err != nil {
			return nil, err
		}
	}
	c := &workload.Check{Passed: res.OK, Detail: res}
	var vs []workload.Verdict
	for _, cond := range res.Conditions {
		status := "PASS"
		if !cond.OK {
			status = "FAIL"
			c.Failed = append(c.Failed, cond.Name)
		}
		vs = append(vs, workload.Verdict{Status: status, What: cond.Name + ": " + cond.Detail})
	}
	c.Note = workload.Summarize("consistency check", vs)
	return c, nil
}
