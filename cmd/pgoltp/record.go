package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/report"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/workload/tpcb"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// recording is a benchmark run being kept in the results store with the
// collectors sampling the server around it. The glue between the workloads
// (which know nothing of the store) and the store (which knows nothing of
// TPC-C or TPC-B) lives here.
type recording struct {
	rec *report.Recording
	run *store.Run
}

// recordCollect are the collector options of the run commands' recordings
// (--bloat-every); the zero value is the collectors' defaults.
var recordCollect collect.Options

// DefaultBloatEvery is --bloat-every for planned runs of an hour or more:
// pgstattuple_approx every 15 minutes (under the collectors' time budget)
// gives a week 672 readings per table.
const DefaultBloatEvery = 15 * time.Minute

// addBloatEveryFlag declares --bloat-every on a run command.
func addBloatEveryFlag(f *pflag.FlagSet, dst *time.Duration) {
	f.DurationVar(dst, "bloat-every", 0, "estimate bloat with pgstattuple_approx this often during a recorded run (default 15m for runs planned to last 1h or more, else never; 0 = never)")
}

// resolveBloatEvery is --bloat-every's value: as given when set, else the
// default for a run planned to last planned (0: unknown length).
func resolveBloatEvery(set bool, value, planned time.Duration) (time.Duration, error) {
	if value < 0 {
		return 0, problem.BadInput("pass --bloat-every 15m, or 0 for never", "--bloat-every %s is negative", value)
	}
	if set {
		return value, nil
	}
	if planned >= time.Hour {
		return DefaultBloatEvery, nil
	}
	return 0, nil
}

// startRecording stores the run as running and starts the collectors on dsn.
// A run is recorded unless --no-record; a store that cannot be opened stops the
// command before any work starts, so no run is half-written.
func startRecording(ctx context.Context, workload, title, dsn string, params []store.KV) (*recording, error) {
	run := &store.Run{Workload: workload, Title: title, StartedAt: time.Now(), Params: params}
	rec, err := report.Begin(ctx, global.lab, resultsStore.dsn, dsn, run, recordCollect)
	if err != nil {
		return nil, fmt.Errorf("opening the results store: %w", err)
	}
	return &recording{rec: rec, run: run}, nil
}

// finish stores the whole run with its status and says where it is.
func (r *recording) finish(ctx context.Context, status store.Status) (string, error) {
	id, err := r.rec.Finish(ctx, status)
	if err != nil {
		return id, fmt.Errorf("storing run %s: %w", id, err)
	}
	if !global.json {
		fmt.Fprintf(os.Stderr, "run %s stored (%s); 'pgoltp report %s' writes its report\n", id, status, id)
	}
	return id, nil
}

// runStatus maps how a run ended to its stored status.
func runStatus(interrupted bool, err error) store.Status {
	switch {
	case err != nil:
		return store.Failed
	case interrupted:
		return store.Interrupted
	}
	return store.Complete
}

// latencyOf exports a merged snapshot's histograms per transaction type.
func latencyOf(total *metrics.Snapshot) map[string]*hdrhistogram.Snapshot {
	if total == nil {
		return nil
	}
	out := make(map[string]*hdrhistogram.Snapshot, len(total.Kinds))
	for k, name := range total.Kinds {
		if total.Hists[k].TotalCount() > 0 {
			out[name] = total.Hists[k].Export()
		}
	}
	return out
}

// fillTPCC copies a TPC-C result into the stored run.
func fillTPCC(run *store.Run, res *tpcc.RunResult) {
	run.Params = run.Params[:0]
	for _, p := range res.Params {
		run.Params = append(run.Params, store.KV{Name: p[0], Value: p[1]})
	}
	run.Headline = []store.Figure{
		// Clause 5.4.4: tpmC is reported truncated; it counts rolled-back New-Orders (5.4.2).
		{Name: "tpmC", Value: math.Floor(res.TpmC), Unit: "New-Orders/min"},
		{Name: "tpmTOTAL", Value: res.TpmTotal, Unit: "txn/min"},
		{Name: "NOPM", Value: res.NOPM, Unit: "committed New-Orders/min"},
	}
	if res.Options.Mode == tpcc.ModeSpec {
		run.Headline = append(run.Headline, store.Figure{Name: "efficiency", Value: res.Efficiency, Unit: "%"})
	}
	if no := res.Txn("new_order"); no.Count > 0 {
		run.Headline = append(run.Headline,
			store.Figure{Name: "New-Order p90", Value: float64(no.Latency.P90) / float64(time.Millisecond), Unit: "ms"},
			store.Figure{Name: "New-Order p99", Value: float64(no.Latency.P99) / float64(time.Millisecond), Unit: "ms"})
	}
	run.Headline = append(run.Headline,
		store.Figure{Name: "errors", Value: float64(res.ErrorsTotal), Unit: "txn"},
		store.Figure{Name: "retries", Value: float64(res.Retries), Unit: "txn"},
		store.Figure{Name: "driver CPU", Value: res.DriverCPUPer1k, Unit: "CPU-s/1k txn"})
	run.Latency = latencyOf(res.Total)
	run.Series = report.Intervals(res.Series, run.StartedAt, "errors")
	var audits []verdict
	for _, a := range res.Audits {
		audits = append(audits, verdict{a.Status, fmt.Sprintf("%s %s = %.3f (bounds %.3f..%.3f)", a.Clause, a.Name, a.Observed, a.Low, a.High)})
	}
	if len(audits) > 0 {
		run.Notes = append(run.Notes, summarize("input audits (TPC-C 5.11 clauses)", audits))
	}
	var times []verdict
	for _, t := range res.Txns {
		if t.Count == 0 {
			continue
		}
		status, what := "PASS", fmt.Sprintf("%s p90 %s (mean %s, limit %s)", t.Name,
			t.Latency.P90.Round(time.Microsecond), t.Latency.Mean.Round(time.Microsecond), t.P90Limit)
		if !t.P90OK || t.P90BelowMean {
			status = "FAIL"
		}
		times = append(times, verdict{status, what})
	}
	if len(times) > 0 {
		run.Notes = append(run.Notes, summarize("response times (clause 5.2.5.3: p90 within its limit, not below the mean)", times))
	}
	for _, n := range res.NonCompliant {
		run.Notes = append(run.Notes, "NON-COMPLIANT with TPC-C 5.11: "+n)
	}
	for _, o := range res.Outages {
		run.Notes = append(run.Notes, fmt.Sprintf("connection %d lost at %s for %s (%d reconnect attempts): %s",
			o.Conn, o.Lost.Format(time.TimeOnly), o.Duration().Round(time.Millisecond), o.Attempts, o.Error))
	}
	if res.StopReason != "" {
		run.Notes = append(run.Notes, "stopped: "+res.StopReason)
	}
	run.MeasureStart, run.MeasureEnd, run.EndedAt = res.MeasureStart, res.MeasureEnd, res.End
}

// fillTPCB copies a TPC-B result into the stored run.
func fillTPCB(run *store.Run, res *tpcb.RunResult) {
	o := res.Options
	run.Params = []store.KV{
		{Name: "workload", Value: "tpcb"},
		{Name: "script", Value: string(o.Script)},
		{Name: "scale", Value: strconv.Itoa(res.Scale)},
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
	run.Headline = []store.Figure{
		{Name: "TPS", Value: res.TPS, Unit: "txn/s"},
		{Name: "latency mean", Value: float64(res.Latency.Mean) / float64(time.Millisecond), Unit: "ms"},
		{Name: "latency p99", Value: float64(res.Latency.P99) / float64(time.Millisecond), Unit: "ms"},
		{Name: "committed", Value: float64(res.Committed), Unit: "txn"},
		{Name: "failed", Value: float64(res.Failed), Unit: "txn"},
		{Name: "retries", Value: float64(res.Retries), Unit: "txn"},
	}
	run.Latency = latencyOf(res.Total)
	run.Series = report.Intervals(res.Series, run.StartedAt, "")
	if res.Check != nil {
		var checks []verdict
		for _, c := range res.Check.Conditions {
			status := "PASS"
			if !c.OK {
				status = "FAIL"
			}
			checks = append(checks, verdict{status, c.Name + ": " + c.Detail})
		}
		run.Notes = append(run.Notes, summarize("consistency check", checks))
	}
	for _, o := range res.Outages {
		run.Notes = append(run.Notes, fmt.Sprintf("client %d lost its connection at %s for %s (%d reconnect attempts): %s",
			o.Conn, o.Lost.Format(time.TimeOnly), o.Duration().Round(time.Millisecond), o.Attempts, o.Error))
	}
	if res.InDoubt > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("%d transactions in doubt: in flight when their connection was lost", res.InDoubt))
	}
	run.EndedAt = res.Start.Add(res.Elapsed)
}

// verdict is one named PASS/FAIL/SKIP outcome.
type verdict struct{ status, what string }

// summarize folds outcomes into one note: the counts, and what failed.
func summarize(title string, vs []verdict) string {
	counts := map[string]int{}
	var failed []string
	for _, v := range vs {
		counts[v.status]++
		if v.status == "FAIL" {
			failed = append(failed, v.what)
		}
	}
	s := fmt.Sprintf("%s: %d PASS, %d FAIL, %d SKIP", title, counts["PASS"], counts["FAIL"], counts["SKIP"])
	if len(failed) > 0 {
		s += "; failed: " + strings.Join(failed, "; ")
	}
	return s
}
