package tpcc

import (
	"fmt"

	"gonum.org/v1/gonum/stat/distuv"
)

// olCntSignificance is the chance that the uniformity audit fails a driver
// that draws the order lines correctly: small, so that a healthy run almost
// never fails it, however long or short.
const olCntSignificance = 0.001

// minExpectedPerBin is the fewest New-Orders expected for each line count
// before the chi-square test means anything (the usual rule of thumb); below
// it the audit is skipped rather than judged.
const minExpectedPerBin = 5

// olCntUniformName names the audit; Tallies leaves it out, since a statistic
// over counts does not add up over a group's parts.
const olCntUniformName = "lines per New-Order uniform (chi-sq)"

// olCntUniform audits the number of order lines per New-Order, random
// [5..15] (clause 2.4.1.3), as a whole distribution, which clause 9.2.2.5
// asks of the driver, not only its mean: Pearson's chi-square statistic of
// the counts of each line count against a uniform one. The bound is the
// statistic's 1 − olCntSignificance quantile with 10 degrees of freedom.
func olCntUniform(counts [olCntBins]int64) Audit {
	var n int64
	for _, c := range counts {
		n += c
	}
	df := float64(olCntBins - 1)
	limit := distuv.ChiSquared{K: df}.Quantile(1 - olCntSignificance)
	a := Audit{Clause: "2.4.1.3", Name: olCntUniformName, Expected: df, Low: 0, High: limit, Samples: n}
	expected := float64(n) / olCntBins
	if expected < minExpectedPerBin {
		a.Status = AuditSkip
		a.Note = fmt.Sprintf("fewer than %d New-Orders expected per line count: too few to judge", minExpectedPerBin)
		return a
	}
	for _, c := range counts {
		d := float64(c) - expected
		a.Observed += d * d / expected
	}
	a.Status = AuditPass
	if a.Observed > limit {
		a.Status = AuditFail
		a.Note = fmt.Sprintf("the line counts are not uniform (p < %g)", olCntSignificance)
	}
	return a
}

// olCnts reads the New-Orders of each line count from the counters.
func olCnts(counter func(kind, counter int) int64) [olCntBins]int64 {
	var out [olCntBins]int64
	for k := range out {
		out[k] = counter(kindNewOrder, cntOLCnt+k)
	}
	return out
}
