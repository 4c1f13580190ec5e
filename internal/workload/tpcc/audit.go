package tpcc

import (
	"math"

	"github.com/pgoltp/pgoltp/internal/metrics"
)

// Audit statuses.
const (
	AuditPass = "PASS"
	AuditFail = "FAIL"
	AuditSkip = "SKIP" // outside the bounds but too few samples to tell; or not applicable
)

// Audit is one input check of clause 9.2: an observed share or mean against
// the standard's bounds.
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

// audit runs the input audits on the measured interval.
func audit(t *metrics.Snapshot, opts RunOptions) []Audit {
	no, pay, os := t.Count(kindNewOrder), t.Count(kindPayment), t.Count(kindOrderStatus)
	lines := t.Counter(kindNewOrder, cntLines)
	multi := opts.Warehouses > 1
	audits := []Audit{
		share("9.2.2.5.1", "New-Order rollbacks %", t.Counter(kindNewOrder, cntRollbacks), no, 1, 0.9, 1.1, true),
		mean("9.2.2.5.2", "order lines per New-Order", lines, no, 10, 9.5, 10.5, math.Sqrt(10)),
		share("9.2.2.5.3", "remote order lines %", t.Counter(kindNewOrder, cntRemoteLines), lines, 1, 0.95, 1.05, multi),
		share("9.2.2.5.4", "remote Payments %", t.Counter(kindPayment, cntRemote), pay, 15, 14, 16, multi),
		share("9.2.2.5.5", "Payments by last name %", t.Counter(kindPayment, cntByName), pay, 60, 57, 63, true),
		share("9.2.2.5.6", "Order-Status by last name %", t.Counter(kindOrderStatus, cntByName), os, 60, 57, 63, true),
	}
	deliveries := t.Count(kindDeliveryDeferred)
	skipped := t.Counter(kindDeliveryDeferred, cntSkipped)
	sk := Audit{Clause: "9.2.1.7", Name: "skipped Delivery districts %", Expected: 0, Low: 0, High: 1,
		Samples: deliveries * districtsPerWarehouse, Status: AuditPass}
	if sk.Samples > 0 {
		sk.Observed = 100 * float64(skipped) / float64(sk.Samples)
	}
	if sk.Observed > sk.High {
		sk.Status = AuditFail
	}
	return append(audits, sk)
}

// share audits a percentage hits/n against [low, high] (percent).
func share(clause, name string, hits, n int64, expected, low, high float64, applicable bool) Audit {
	a := Audit{Clause: clause, Name: name, Expected: expected, Low: low, High: high, Samples: n}
	if !applicable {
		a.Status, a.Note = AuditSkip, "one warehouse: nothing is remote"
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
