package tpcc

import (
	"math"
	"testing"
)

// TestTalliesJudgeAsTheAudits: an audit turned into a tally (what a group
// sums over its parts) gets the same verdict and value as the audit itself,
// for passes, failures, too-few-samples and the "1% or one" rule.
func TestTalliesJudgeAsTheAudits(t *testing.T) {
	audits := []Audit{
		share("2.5.1.2", "remote Payments %", 150, 1000, 15, 14, 16, true),
		share("2.5.1.2", "remote Payments %", 300, 1000, 15, 14, 16, true),
		share("2.5.1.2", "remote Payments %", 2, 10, 15, 14, 16, true),
		share("2.4.1.5", "remote order lines %", 0, 10, 1, 0.95, 1.05, false),
		mean("2.4.1.3", "order lines per New-Order", 10_000, 1000, 10, 9.5, 10.5, math.Sqrt(10)),
		mean("2.4.1.3", "order lines per New-Order", 12_000, 1000, 10, 9.5, 10.5, math.Sqrt(10)),
		skippedDeliveries(50, 1),
		skippedDeliveries(50, 2),
		skippedDeliveries(1000, 10),
		skippedDeliveries(0, 0),
	}
	tallies := Tallies(audits)
	if len(tallies) != len(audits)-1 {
		t.Fatalf("%d tallies for %d audits, one not applicable", len(tallies), len(audits))
	}
	i := 0
	for _, a := range audits {
		if a.Note == notApplicable {
			continue
		}
		tl := tallies[i]
		i++
		if got := tl.Judge(); got != a.Status {
			t.Errorf("%s %s observed %.3f: tally says %s, audit %s", a.Clause, a.Name, a.Observed, got, a.Status)
		}
		if math.Abs(tl.Value()-a.Observed) > 1e-9 {
			t.Errorf("%s %s: tally value %v, audit %v", a.Clause, a.Name, tl.Value(), a.Observed)
		}
	}
}
