package tpcc

import (
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/metrics"
)

// TestOLCntUniformAudit: order line counts drawn as the driver draws them
// pass at every sample size, including short runs; clearly non-uniform
// counts fail once there are enough; too few are skipped, not judged.
func TestOLCntUniformAudit(t *testing.T) {
	r := NewRand(7)
	for _, n := range []int{55, 200, 1000, 100_000} {
		var counts [olCntBins]int64
		for range n {
			counts[r.IntRange(minOLCnt, maxOLCnt)-minOLCnt]++
		}
		if a := olCntUniform(counts); a.Status != AuditPass || a.Samples != int64(n) {
			t.Errorf("%d uniform draws: %s, chi-square %.2f, limit %.2f (%s)", n, a.Status, a.Observed, a.High, a.Note)
		}
	}
	// Twice as many orders of 5 lines as of any other count.
	skewed := [olCntBins]int64{200, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100}
	if a := olCntUniform(skewed); a.Status != AuditFail {
		t.Errorf("skewed counts: %s, chi-square %.2f, limit %.2f", a.Status, a.Observed, a.High)
	}
	// Only ever 10 lines: what a mean-only audit passes.
	var tens [olCntBins]int64
	tens[10-minOLCnt] = 1000
	if a := olCntUniform(tens); a.Status != AuditFail {
		t.Errorf("every New-Order of 10 lines: %s, chi-square %.2f", a.Status, a.Observed)
	}
	if a := olCntUniform([olCntBins]int64{10, 10, 10, 10, 10, 0, 0, 0, 0, 0, 0}); a.Status != AuditSkip {
		t.Errorf("50 New-Orders (under 5 per count): %s, want SKIP", a.Status)
	}
}

// TestRunAuditsTheLineCounts: the audit of a run reads the counts its
// terminals recorded.
func TestRunAuditsTheLineCounts(t *testing.T) {
	res := finishedRun(specOptions(), func(l *metrics.Local) {
		for range 1000 {
			l.Record(kindNewOrder, time.Millisecond)
			l.Add(kindNewOrder, cntOLCnt+10-minOLCnt, 1)
			l.Add(kindNewOrder, cntLines, 10)
		}
	})
	for _, a := range res.Audits {
		if a.Name == olCntUniformName && (a.Status != AuditFail || a.Samples != 1000) {
			t.Errorf("1000 New-Orders of 10 lines: %+v", a)
		}
		if a.Name == "order lines per New-Order" && a.Status != AuditPass {
			t.Errorf("the mean audit should pass them: %+v", a)
		}
	}
	if !containsAny(res.NonCompliant, olCntUniformName) {
		t.Errorf("a failed uniformity audit is not a departure: %q", res.NonCompliant)
	}
}

// TestDeliveriesOneWindow: the Deliveries line counts the measured interval,
// as the per-transaction table beside it, not the ramp-up too.
func TestDeliveriesOneWindow(t *testing.T) {
	start := time.Now()
	rec := metrics.NewRecorder(kindNames(), counterNames()...)
	l := rec.NewLocal()
	opts := specOptions()
	res := &RunResult{Options: opts, LoadedWarehouses: 1}
	a := newAggregator(opts, rec, nil, res, start, start.Add(150*time.Millisecond))
	for range 7 { // during ramp-up
		l.Record(kindDelivery, time.Microsecond)
		l.Record(kindDeliveryDeferred, time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	a.interval(rec.Interval(), false)
	for range 3 { // measured
		l.Record(kindDelivery, time.Microsecond)
		l.Record(kindDeliveryDeferred, time.Millisecond)
	}
	a.interval(rec.Interval(), true)
	a.finish()
	d, queued, done := res.Deliveries, res.Txn("delivery").Count, res.Txn("delivery_deferred").Count
	if queued != 3 || d.Queued != queued || d.Completed != done {
		t.Errorf("deliveries queued %d completed %d, the table %d and %d (3 measured, 7 in ramp-up)", d.Queued, d.Completed, queued, done)
	}
}
