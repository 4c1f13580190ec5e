package pgbench

import (
	"fmt"
	"io"
	"math"
)

// cfmt is fmt.Sprintf with C's printf for non-finite doubles.
func cfmt(format string, args ...any) string {
	for i, a := range args {
		if f, ok := a.(float64); ok {
			args[i] = cdouble(f)
		}
	}
	return fmt.Sprintf(format, args...)
}

// printer writes lines of the summary.
type printer struct{ w io.Writer }

func (p printer) line(format string, args ...any) { io.WriteString(p.w, cfmt(format, args...)+"\n") }

// VersionLine is the line pgbench prints on stdout before a run: its
// version, and the server's when it differs.
func VersionLine(client, server string) string {
	if server != "" && server != client {
		return fmt.Sprintf("pgbench (%s, server %s)", client, server)
	}
	return fmt.Sprintf("pgbench (%s)", client)
}

// WriteSummary prints pgbench's report of a run (printResults): the
// parameters, the counts, latencies, tps, and the per-script and -r
// per-statement blocks.
func WriteSummary(w io.Writer, r *Results) {
	p := printer{w}
	o := r.Options
	r.writeParams(p)
	t := r.Total
	all := t.all()
	p.line("number of failed transactions: %d (%.3f%%)", t.Failures(), 100*float64(t.Failures())/float64(all))
	if o.FailuresDetailed {
		p.line("number of serialization failures: %d (%.3f%%)", t.SerializationFailures, 100*float64(t.SerializationFailures)/float64(all))
		p.line("number of deadlock failures: %d (%.3f%%)", t.DeadlockFailures, 100*float64(t.DeadlockFailures)/float64(all))
	}
	if o.MaxTries != 1 {
		p.line("number of transactions retried: %d (%.3f%%)", t.Retried, 100*float64(t.Retried)/float64(all))
		p.line("total number of retries: %d", t.Retries)
	}
	if t.Count+t.Skipped <= 0 {
		return
	}
	r.writeLatencies(p)
	r.writeScripts(p)
}

func (r *Results) writeParams(p printer) {
	o := r.Options
	desc := "multiple scripts"
	if len(o.Scripts) == 1 {
		desc = o.Scripts[0].Desc
	}
	p.line("transaction type: %s", desc)
	p.line("scaling factor: %d", r.Table.Scale)
	if r.Table.PartitionMethod != "" {
		p.line("partition method: %s\npartitions: %d", r.Table.PartitionMethod, r.Table.Partitions)
	}
	p.line("query mode: %s", o.QueryMode)
	p.line("number of clients: %d", o.Clients)
	p.line("number of threads: %d", o.Jobs)
	if o.MaxTries != 0 {
		p.line("maximum number of tries: %d", o.MaxTries)
	}
	if o.Duration <= 0 {
		p.line("number of transactions per client: %d", o.Transactions)
		p.line("number of transactions actually processed: %d/%d", r.Total.Count, o.Transactions*o.Clients)
	} else {
		p.line("duration: %d s", o.Duration)
		p.line("number of transactions actually processed: %d", r.Total.Count)
	}
}

func (r *Results) writeLatencies(p printer) {
	o, t := r.Options, r.Total
	throttled := o.Rate > 0
	if throttled && o.LatencyLimitUs > 0 {
		p.line("number of transactions skipped: %d (%.3f%%)", t.Skipped, 100*float64(t.Skipped)/float64(t.all()))
	}
	if o.LatencyLimitUs > 0 {
		late := 0.0
		if t.Count > 0 {
			late = 100 * float64(r.LatencyLate) / float64(t.Count)
		}
		p.line("number of transactions above the %.1f ms latency limit: %d/%d (%.3f%%)", float64(o.LatencyLimitUs)/1000, r.LatencyLate, t.Count, late)
	}
	if throttled || o.Progress > 0 || o.LatencyLimitUs > 0 {
		writeSimpleStats(p, "latency", t.Latency)
	} else {
		including := ""
		if t.Failures() > 0 {
			including = " (including failures)"
		}
		p.line("latency average = %.3f ms%s", 0.001*float64(r.BenchDurationUs)*float64(o.Clients)/float64(t.all()), including)
	}
	if throttled {
		p.line("rate limit schedule lag: avg %.3f (max %.3f) ms", 0.001*t.Lag.Sum/float64(t.Count), 0.001*t.Lag.Max)
	}
	tps := float64(t.Count) / (float64(r.BenchDurationUs) / 1e6)
	if o.Connect {
		p.line("average connection time = %.3f ms", 0.001*float64(r.ConnTotalUs)/float64(t.Count+t.Failures()))
		p.line("tps = %f (including reconnection times)", tps)
	} else {
		p.line("initial connection time = %.3f ms", 0.001*float64(r.ConnElapsedUs))
		p.line("tps = %f (without initial connection time)", tps)
	}
}

func writeSimpleStats(p printer, prefix string, s SimpleStats) {
	if s.Count > 0 {
		avg := s.Sum / float64(s.Count)
		p.line("%s average = %.3f ms", prefix, 0.001*avg)
		p.line("%s stddev = %.3f ms", prefix, 0.001*math.Sqrt(s.Sum2/float64(s.Count)-avg*avg))
	}
}
