package tpcc

import (
	"math"
	"strings"

	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Audit statuses.
const (
	AuditPass = "PASS"
	AuditFail = "FAIL"
	AuditSkip = "SKIP" // outside the bounds but too few samples to tell; or not applicable
)

// Audit is one input check: an observed share or mean against the bounds of
// the TPC-C 5.11 clause that defines the input (Clause).
type Audit struct {
	Clause   string  `json:"clause"`
	Name     string  `json:"name"`
	Observed float64 `json:"observed"`
	Expected float64 `json:"expected"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	Samples  int64   `json:"samples"`
	// Sigma is the standard error of Observed for this many samples: an
	// observation outside [Low, High] fails only when the sample is large
	// enough for the bounds to mean something, or when it is more than four
	// standard errors from the expected value.
	Sigma  float64 `json:"sigma"`
	Status string  `json:"status"`
	Note   string  `json:"note,omitempty"`
}

// audit runs the input audits on the measured interval. loaded is the number
// of warehouses in the database: remote warehouses are drawn from all of them.
func audit(t *metrics.Snapshot, loaded int) []Audit {
	no, pay, os := t.Count(kindNewOrder), t.Count(kindPayment), t.Count(kindOrderStatus)
	lines := t.Counter(kindNewOrder, cntLines)
	multi := loaded > 1
	return []Audit{
		share("2.4.1.4", "New-Order rollbacks %", t.Counter(kindNewOrder, cntRollbacks), no, 1, 0.9, 1.1, true),
		mean("2.4.1.3", "order lines per New-Order", lines, no, 10, 9.5, 10.5, math.Sqrt(10)),
		olCntUniform(olCnts(t.Counter)),
		share("2.4.1.5", "remote order lines %", t.Counter(kindNewOrder, cntRemoteLines), lines, 1, 0.95, 1.05, multi),
		share("2.5.1.2", "remote Payments %", t.Counter(kindPayment, cntRemote), pay, 15, 14, 16, multi),
		share("2.5.1.2", "Payments by last name %", t.Counter(kindPayment, cntByName), pay, 60, 57, 63, true),
		share("2.6.1.2", "Order-Status by last name %", t.Counter(kindOrderStatus, cntByName), os, 60, 57, 63, true),
		skippedDeliveries(t.Count(kindDeliveryDeferred), t.Counter(kindDeliveryDeferred, cntSkippedDeliveries)),
	}
}

// skippedDeliveries audits the Deliveries that found a district without an
// undelivered order and skipped it (clause 2.7.4.2): at most 1% of the
// Delivery transactions, or one, whichever is greater, may skip any district.
// The count is per Delivery, not per district.
func skippedDeliveries(deliveries, skipped int64) Audit {
	a := Audit{Clause: "2.7.4.2", Name: "Deliveries that skipped a district %", Expected: 0, Low: 0, High: 1,
		Samples: deliveries, Status: AuditPass}
	if deliveries == 0 {
		a.Status, a.Note = AuditSkip, "no samples"
		return a
	}
	allowed := max(1, float64(deliveries)/100)
	a.High = 100 * allowed / float64(deliveries)
	a.Observed = 100 * float64(skipped) / float64(deliveries)
	if float64(skipped) > allowed {
		a.Status = AuditFail
		a.Note = "more than 1% (or one) of the Deliveries found a district without a new order"
	}
	return a
}

// notApplicable notes an audit that does not apply to the database.
const notApplicable = "one warehouse: nothing is remote"

// share audits a percentage hits/n against [low, high] (percent).
func share(clause, name string, hits, n int64, expected, low, high float64, applicable bool) Audit {
	a := Audit{Clause: clause, Name: name, Expected: expected, Low: low, High: high, Samples: n}
	if !applicable {
		a.Status, a.Note = AuditSkip, notApplicable
		return a
	}
	if n == 0 {
		a.Status, a.Note = AuditSkip, "no samples"
		return a
	}
	p := expected / 100
	a.Observed = 100 * float64(hits) / float64(n)
	a.Sigma = 100 * math.Sqrt(p*(1-p)/float64(n))
	a.judge()
	return a
}

// mean audits the average sum/n against [low, high], sd being the standard
// deviation of one sample.
func mean(clause, name string, sum, n int64, expected, low, high, sd float64) Audit {
	a := Audit{Clause: clause, Name: name, Expected: expected, Low: low, High: high, Samples: n}
	if n == 0 {
		a.Status, a.Note = AuditSkip, "no samples"
		return a
	}
	a.Observed = float64(sum) / float64(n)
	a.Sigma = sd / math.Sqrt(float64(n))
	a.judge()
	return a
}

func (a *Audit) judge() {
	switch {
	case a.Observed >= a.Low && a.Observed <= a.High:
		a.Status = AuditPass
	case math.Abs(a.Observed-a.Expected) > 4*a.Sigma:
		a.Status = AuditFail
	case min(a.Expected-a.Low, a.High-a.Expected) >= 3*a.Sigma:
		a.Status = AuditFail
	default:
		a.Status, a.Note = AuditSkip, "outside the bounds but within sampling error: too few samples to judge"
	}
}

// Tallies are the applicable audits in numbers that add up (workload.Tally),
// judged as the audits are: a group of parts sums them over all parts.
func Tallies(audits []Audit) []workload.Tally {
	var out []workload.Tally
	for _, a := range audits {
		if a.Note == notApplicable || a.Name == olCntUniformName {
			continue
		}
		t := workload.Tally{Name: a.Clause + " " + a.Name, Of: a.Samples, Scale: 1, Expected: a.Expected, Low: a.Low, High: a.High, Allow: -1}
		switch {
		case a.Clause == "2.7.4.2": // at most 1% of the Deliveries, or one
			t.Scale, t.High, t.Allow = 100, 1, 1
		case strings.HasSuffix(a.Name, "%"):
			p := a.Expected / 100
			t.Scale, t.SD = 100, 100*math.Sqrt(p*(1-p))
		default:
			t.SD = a.Sigma * math.Sqrt(float64(a.Samples))
		}
		t.Count = int64(math.Round(a.Observed * float64(a.Samples) / t.Scale))
		out = append(out, t)
	}
	return out
}
