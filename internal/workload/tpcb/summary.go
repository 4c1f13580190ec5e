package tpcb

import (
	"fmt"
	"io"
	"time"
)

// WriteSummary prints the result laid out like pgbench's report, then the
// latency percentiles pgbench does not give, then the check.
func (r *RunResult) WriteSummary(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	r.writeParams(p)
	r.writeCounts(p)
	r.writeLatency(p)
	r.writeEnd(p)
}

// printf prints one line of the summary.
type printf func(format string, args ...any)

// percentOf is n as a percentage of of (0 when of is 0).
func percentOf(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// writeParams prints what was run, as pgbench's report starts.
func (r *RunResult) writeParams(p printf) {
	o := r.Options
	p("transaction type: %s", r.Description)
	p("scaling factor: %d", r.Scale)
	p("query mode: %s", o.Protocol)
	p("number of clients: %d", o.Clients)
	p("number of threads: %d", o.Jobs)
	if o.MaxTries < 0 {
		p("maximum number of tries: unlimited")
	} else {
		p("maximum number of tries: %d", o.MaxTries)
	}
	if o.Duration > 0 {
		p("duration: %s", formatDuration(o.Duration))
	} else if o.Transactions > 0 {
		p("number of transactions per client: %d", o.Transactions)
	}
	if o.StopAtTxns > 0 {
		p("stop at transactions: %d (all clients)", o.StopAtTxns)
	}
}

// writeCounts prints the transactions processed, failed, retried, skipped
// and late.
func (r *RunResult) writeCounts(p printf) {
	o := r.Options
	switch {
	case o.StopAtTxns > 0:
		p("number of transactions actually processed: %d/%d", r.Committed, o.StopAtTxns)
	case o.Duration > 0:
		p("number of transactions actually processed: %d", r.Committed)
	default:
		p("number of transactions actually processed: %d/%d", r.Committed, int64(o.Transactions)*int64(o.Clients))
	}
	all := r.Committed + r.Failed
	p("number of failed transactions: %d (%.3f%%)", r.Failed, percentOf(r.Failed, all))
	if o.MaxTries != 1 {
		p("number of transactions retried: %d (%.3f%%)", r.Retried, percentOf(r.Retried, all))
		p("total number of retries: %d", r.Retries)
	}
	if o.Rate > 0 && o.LatencyLimit > 0 {
		p("number of transactions skipped: %d (%.3f%%)", r.Skipped, percentOf(r.Skipped, all+r.Skipped))
	}
	if o.LatencyLimit > 0 {
		p("number of transactions above the %.1f ms latency limit: %d/%d (%.3f%%)",
			ms(o.LatencyLimit), r.Late, r.Committed, percentOf(r.Late, r.Committed))
	}
}

// writeLatency prints the latency, throughput, driver cost and the
// per-statement latencies.
func (r *RunResult) writeLatency(p printf) {
	p("latency average = %.3f ms", ms(r.Latency.Mean))
	p("latency stddev = %.3f ms", ms(r.LatencyStddev))
	if r.Lag != nil {
		p("rate limit schedule lag: avg %.3f (max %.3f) ms", ms(r.Lag.Mean), ms(r.Lag.Max))
	}
	p("initial connection time = %.3f ms", ms(r.ConnectTime))
	p("tps = %f (without initial connection time)", r.TPS)
	l := r.Latency
	p("latency percentiles: p50 %.3f  p90 %.3f  p95 %.3f  p99 %.3f  p99.9 %.3f  max %.3f ms",
		ms(l.P50), ms(l.P90), ms(l.P95), ms(l.P99), ms(l.P999), ms(l.Max))
	p("driver CPU = %.3f s (%.4f CPU-s per 1000 transactions), peak RSS = %.1f MB",
		r.DriverCPU.Seconds(), r.DriverCPUPer1k, float64(r.PeakRSS)/(1<<20))
	p("statement latencies in milliseconds, failures and retries (with p50, p99):")
	def, _ := r.Options.Script.def()
	for _, s := range def.setLines() {
		p("  %12s %11s %11s %9s %9s  %s", "-", "0", "0", "-", "-", s)
	}
	for _, s := range r.Statements {
		p("  %12.3f %11d %11d %9.3f %9.3f  %s", ms(s.Latency.Mean), s.Failures, s.Retries,
			ms(s.Latency.P50), ms(s.Latency.P99), s.Text)
	}
}

// writeEnd prints how the run ended: interruption, errors, outages, check.
func (r *RunResult) writeEnd(p printf) {
	if r.Interrupted {
		p("run interrupted before its end: the figures cover what ran")
	}
	for _, l := range r.Split.Lines() {
		p("%s", l)
	}
	for _, e := range r.Errors {
		p("%s", e)
	}
	if len(r.Outages) > 0 {
		var longest time.Duration
		restored := 0
		for _, o := range r.Outages {
			if !o.Restored.IsZero() {
				restored++
				longest = max(longest, o.Restored.Sub(o.Lost))
			}
		}
		p("connection outages: %d (%d restored, longest %.1f s), %d transactions in doubt",
			len(r.Outages), restored, longest.Seconds(), r.InDoubt)
	}
	if r.Check != nil {
		if r.Check.OK {
			p("check: ok (%s)", checkLine(r.Check))
		} else {
			for _, c := range r.Check.Failures() {
				p("check FAILED: %s: %s", c.Name, c.Detail)
			}
		}
	}
}

func checkLine(c *CheckResult) string {
	s := ""
	for i, cond := range c.Conditions {
		if i > 0 {
			s += "; "
		}
		s += cond.Detail
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// formatDuration prints a duration like pgbench ("20 s").
func formatDuration(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%d s", int64(d/time.Second))
	}
	return d.String()
}
