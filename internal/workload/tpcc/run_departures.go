package tpcc

import (
	"fmt"
	"time"

	"github.com/pgoltp/pgoltp/internal/driver"
)

// What a run is called: compliant only when it departs from the standard in
// nothing the driver controls; indicative otherwise (its figures are still
// measured, but they are not a TPC-C result).
const (
	Compliant  = "compliant"
	Indicative = "indicative"
)

// minMeasured is the shortest measurement interval TPC-C allows: two hours
// in steady state since revision 5.0. The standard's own Document History
// (revision 5.11, page 3) lists revision 5.0 of 18 October 2000 as "Change
// pricing, 2 Hour Measurement, 60 Day Space"; ../shared/TPCC.md does not
// give the number.
const minMeasured = 2 * time.Hour

// compliance is Compliant when nothing departs from the standard.
func compliance(departures []string) string {
	if len(departures) == 0 {
		return Compliant
	}
	return Indicative
}

// departures lists, one line each with its clause, every way a run departs
// from the standard: the options that change what the standard fixes (mode,
// keying scale, pacing, mix, terminals, ramp-up, the measurement interval,
// the Delivery result file), failed input audits, and in spec mode the
// response time limits. A no-wait run queues by design, so its response
// times are not judged: the mode already makes it indicative.
func departures(opts RunOptions, measured time.Duration, txns []TxnResult, audits []Audit) []string {
	out := optionDepartures(opts)
	if opts.Ramp == 0 {
		out = append(out, `no ramp-up: the measurement starts with the terminals, not in a steady state (clause 5: "tpmC = New-Orders completed per minute in the measurement interval (after ramp-up)"; --ramp)`)
	}
	if measured < minMeasured {
		out = append(out, fmt.Sprintf("measured %s, shorter than the 2-hour measurement interval in steady state that TPC-C requires since revision 5.0 (--duration)",
			measured.Round(time.Second)))
	}
	for _, a := range audits {
		if a.Status == AuditFail {
			out = append(out, fmt.Sprintf("input audit %s = %.3f is outside %.2f..%.2f (clause %s)", a.Name, a.Observed, a.Low, a.High, a.Clause))
		}
	}
	if opts.Mode != ModeSpec {
		return out
	}
	for _, t := range txns {
		if !t.P90OK {
			out = append(out, fmt.Sprintf("%s 90th percentile %s exceeds its limit %s (clause 5.2.5.3)",
				t.Name, driver.FormatLatency(t.Latency.P90), driver.FormatLatency(t.P90Limit)))
		}
	}
	return out
}

// optionDepartures are the departures the options alone decide.
func optionDepartures(opts RunOptions) []string {
	var out []string
	if opts.Mode != ModeSpec {
		out = append(out, "no-wait mode: no keying or think times (clause 5.2.5.7; --mode spec)")
	} else if opts.KeyingScale != 1 {
		out = append(out, fmt.Sprintf("keying and think times scaled by %g (clause 5.2.5.7 fixes them: New-Order 18/12 s, Payment 3/12, Order-Status 2/10, Delivery 2/5, Stock-Level 2/5); the efficiency is against the scaled ceiling",
			opts.KeyingScale))
	}
	if opts.Rate > 0 {
		out = append(out, fmt.Sprintf("transactions paced to %g per minute by --rate, not by the keying and think times (clause 5.2.5.7)", opts.Rate))
	}
	if !MixMeetsMinimum(opts.Weights) {
		out = append(out, fmt.Sprintf("mix %s is below the minimums of clause 5.2.3 (Payment ≥ 43%%, Order-Status, Delivery, Stock-Level ≥ 4%% each)",
			weightsString(opts.Weights)))
	}
	homes := homeCount(opts)
	switch per := districtsPerWarehouse * homes; {
	case opts.Terminals > per:
		out = append(out, fmt.Sprintf("%d terminals on %d warehouses: more than 10 per warehouse share Stock-Level districts (clauses 4.2.2, 2.8.1.1)",
			opts.Terminals, homes))
	case opts.Terminals < per:
		out = append(out, fmt.Sprintf("%d terminals on %d warehouses: the standard has 10 per warehouse (clause 4.2.2)", opts.Terminals, homes))
	}
	if opts.Reads.On() {
		out = append(out, "Order-Status and Stock-Level read on standbys that lag the primary (clause 3.4; --reads, --read-dsn)")
	}
	if opts.DeliveryLog == nil {
		out = append(out, "no Delivery result file: each deferred Delivery's result line was not written (clause 2.7.2; --delivery-log FILE)")
	}
	return out
}
