package tpcc

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pgoltp/pgoltp/internal/driver"
)

// WriteSummary writes the human-readable summary: every parameter, the
// headline figures with the mode that produced them, a latency table per
// transaction, the response time checks of clause 5.2.5.3, errors and
// Deliveries, the input audits, and where the run departs from the standard.
func (r *RunResult) WriteSummary(w io.Writer) error {
	var b strings.Builder
	r.writeHeadline(&b)
	if len(r.Schemas) > 0 {
		if err := r.writeSchemas(&b); err != nil {
			return err
		}
		b.WriteByte('\n')
	}
	if err := r.writeTxnTable(&b); err != nil {
		return err
	}
	r.writeErrors(&b)
	r.writeResponseTimes(&b)
	r.writeAudits(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHeadline writes the run's parameters, seeds, window, tpmC and the
// driver's own cost.
func (r *RunResult) writeHeadline(b *strings.Builder) {
	var params []string
	for _, p := range r.Params {
		params = append(params, p[0]+"="+p[1])
	}
	fmt.Fprintf(b, "TPC-C run (%s path, %s mode): %s\n", r.Options.Path, r.Options.Mode, strings.Join(params, " "))
	if len(r.Schemas) == 0 {
		fmt.Fprintf(b, "C_RUN c_last=%d c_id=%d ol_i_id=%d (C_LOAD c_last=%d)\n", r.CRun.CLast, r.CRun.CID, r.CRun.OLIID, r.CLoad.CLast)
	} else {
		fmt.Fprintln(b, r.seedsNote())
	}
	status := r.StopReason
	if r.Interrupted {
		status = "INTERRUPTED by the user; results cover the time before"
	}
	fmt.Fprintf(b, "measured %.1fs after %v ramp-up, %s\n", r.Measured.Seconds(), r.Options.Ramp, status)
	mode := "no-wait mode (no keying/think times)"
	if r.Options.Mode == ModeSpec {
		mode = fmt.Sprintf("spec mode, efficiency %.1f%% of %.2f tpmC/warehouse, the ceiling for mix %s",
			r.Efficiency, r.MaxTpmCPerWarehouse, weightsString(r.Options.Weights))
	}
	// Clause 5.4.4: the reported tpmC is truncated, not rounded.
	fmt.Fprintf(b, "tpmC %d  tpmTOTAL %d  NOPM %d  [%s]\n", truncate(r.TpmC), truncate(r.TpmTotal), truncate(r.NOPM), mode)
	fmt.Fprintf(b, "(tpmC counts every completed New-Order, rolled-back ones included (clause 5.4.2); NOPM only committed ones)\n")
	b.WriteString(r.Others.line() + "\n")
	fmt.Fprintf(b, "warehouses driven %d of %d loaded, %d terminals on %d connections\n",
		r.Options.Warehouses, r.LoadedWarehouses, r.Options.Terminals, r.Options.Conns)
	if len(r.NonCompliant) == 0 {
		fmt.Fprintf(b, "COMPLIANT with TPC-C 5.11 in everything the driver controls\n")
	} else {
		fmt.Fprintf(b, "INDICATIVE, not a TPC-C result: it departs from TPC-C 5.11 in %d ways:\n", len(r.NonCompliant))
		for _, n := range r.NonCompliant {
			fmt.Fprintf(b, "  - %s\n", n)
		}
	}
	if r.Options.Reads.On() {
		fmt.Fprintf(b, "%s\n", readsNonCompliant)
	}
	for _, l := range r.Split.Lines() {
		fmt.Fprintf(b, "%s\n", l)
	}
	fmt.Fprintf(b, "driver CPU %.2fs, %.3f CPU-s per 1000 transactions, peak RSS %d MB\n\n",
		r.DriverCPU.Seconds(), r.DriverCPUPer1k, r.DriverPeakRSS>>20)
}

// writeTxnTable writes one line per transaction type: counts and latency
// percentiles against its p90 limit.
func (r *RunResult) writeTxnTable(b *strings.Builder) error {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "txn\tcount\terrors\tretries\tp50\tp90\tp95\tp99\tp99.9\tmax\tp90 limit\t")
	for _, t := range r.Txns {
		l := t.Latency
		limit := driver.FormatLatency(t.P90Limit)
		if r.Options.Mode == ModeSpec && !t.P90OK {
			limit += " EXCEEDED"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", t.Name, t.Count, t.Errors, t.Retries,
			lat(l.P50, l.Count), lat(l.P90, l.Count), lat(l.P95, l.Count), lat(l.P99, l.Count),
			lat(l.P999, l.Count), lat(l.Max, l.Count), limit)
	}
	return tw.Flush()
}

// writeErrors writes the error, retry and reconnect counts, each kind of
// error, each lost connection and the deliveries.
func (r *RunResult) writeErrors(b *strings.Builder) {
	fmt.Fprintf(b, "\nerrors %d  retries %d  rollbacks %d  reconnects %d\n", r.ErrorsTotal, r.Retries, r.Rollbacks, r.Reconnects)
	fmt.Fprintf(b, "order-status outputs not one picture %d (clause 3.4; must be 0)\n", r.OrderStatusMismatches)
	for _, e := range r.Errors {
		fmt.Fprintf(b, "  %d× %s [%s] %s\n", e.Count, e.Txn, e.SQLState, e.Message)
	}
	for _, l := range driver.OutageLines(r.Outages) {
		fmt.Fprintf(b, "  %s\n", l)
	}
	d := r.Deliveries
	fmt.Fprintf(b, "deliveries in the measured interval: queued %d completed %d, not completed at the end %d, %d skipped a district (%d districts), p90 completion %s\n",
		d.Queued, d.Completed, d.NotCompleted, d.SkippedDeliveries, d.SkippedDistricts, driver.FormatLatency(d.P90Completion))
}

// writeResponseTimes writes the verdict of clause 5.2.5.3 per transaction type.
func (r *RunResult) writeResponseTimes(b *strings.Builder) {
	b.WriteString("response times (clause 5.2.5.3: 90th percentile within its limit):\n")
	for _, t := range r.Txns {
		if t.Count == 0 {
			continue
		}
		verdict := "PASS"
		if !t.P90OK {
			verdict = "FAIL: over the limit"
		}
		fmt.Fprintf(b, "  %-18s p90 %-9s mean %-9s limit %-5s %s\n", t.Name, driver.FormatLatency(t.Latency.P90),
			driver.FormatLatency(t.Latency.Mean), driver.FormatLatency(t.P90Limit), verdict)
	}
}

// writeAudits writes the input audits, each with the clause that defines it.
func (r *RunResult) writeAudits(b *strings.Builder) {
	b.WriteString("input audits (TPC-C 5.11 clause that defines the input):\n")
	for _, a := range r.Audits {
		fmt.Fprintf(b, "  %-8s %-36s %8.3f  expect %6.2f  bounds %.2f..%.2f  n=%d  %s", a.Clause, a.Name,
			a.Observed, a.Expected, a.Low, a.High, a.Samples, a.Status)
		if a.Note != "" {
			b.WriteString(" (" + a.Note + ")")
		}
		b.WriteByte('\n')
	}
}

// truncate drops the fraction of a rate (clause 5.4.4 truncates tpmC).
func truncate(x float64) int64 { return int64(math.Floor(x)) }

func lat(d time.Duration, n int64) string {
	if n == 0 {
		return "-"
	}
	return driver.FormatLatency(d)
}
