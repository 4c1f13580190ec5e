package group

import (
	"math"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// partRun is a stored part: latencies (µs) of type "t", and perSecond
// completions in each of its seconds 0..len-1 after the agreed start.
func partRun(start time.Time, lat []int64, perSecond []int64, measureFrom, measureTo int) *store.Run {
	h := metrics.NewHistogram()
	for _, v := range lat {
		_ = h.RecordValue(v)
	}
	r := &store.Run{StartedAt: start, Status: store.Complete, Latency: map[string]*hdrhistogram.Snapshot{"t": h.Export()},
		MeasureStart: start.Add(time.Duration(measureFrom) * time.Second), MeasureEnd: start.Add(time.Duration(measureTo) * time.Second),
		Params: Params("g", workload.Rate{Figure: "TPS", Type: "t", Unit: "txn/s", Per: time.Second})}
	for s, n := range perSecond {
		r.Series = append(r.Series, store.Interval{Second: s, Length: 1, Type: "t", Count: n})
	}
	return r
}

// TestMergeIsExactAndSumsOverTheCommonWindow: the group's p99 is the p99 of
// all latencies together (not the mean of the parts' p99s, which differs
// here), and its rate is the sum of the parts' rates over the seconds both
// measured.
func TestMergeIsExactAndSumsOverTheCommonWindow(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	fast, slow := make([]int64, 0, 1000), make([]int64, 0, 100)
	for i := range 1000 {
		fast = append(fast, int64(100+i%50))
	}
	for i := range 100 {
		slow = append(slow, int64(10_000+100*i))
	}
	// Part 1 measures seconds 1..5, part 2 seconds 2..6: common window 2..5.
	r1 := partRun(start, fast, []int64{100, 10, 10, 10, 10, 999, 0}, 1, 5)
	r2 := partRun(start, slow, []int64{0, 999, 20, 20, 20, 20, 999}, 2, 6)
	// An audit that fails in part 2 alone passes over both (2 of 200 = 1%).
	audit := store.Tally{Name: "remote %", Scale: 100, Expected: 1, SD: 10, Low: 0.9, High: 1.1, Allow: -1}
	r1.Tallies = []store.Tally{audit, audit}
	r1.Tallies[0].Count, r1.Tallies[0].Of = 0, 100
	r1.Tallies[1].Name, r1.Tallies[1].Count, r1.Tallies[1].Of = "only in part 1", 1, 100
	r2.Tallies = []store.Tally{audit}
	r2.Tallies[0].Count, r2.Tallies[0].Of = 2, 100
	g := store.Group{Name: "g", Workload: "tpcb", Parts: 2, Start: start, CheckedBy: 2}
	parts := []store.GroupPart{{Part: 1, RunID: "a", Status: "complete"}, {Part: 2, RunID: "b", Status: "complete"}}
	v := merge(g, parts, map[int]*store.Run{1: r1, 2: r2}, start.Add(10*time.Second))
	if len(v.Audits) != 2 || v.Audits[0].Count != 2 || v.Audits[0].Of != 200 || v.Audits[0].Status != "PASS" || v.Audits[1].Of != 100 {
		t.Errorf("audits over both parts %+v: want remote %% 2/200 PASS, then the one only part 1 had", v.Audits)
	}

	if v.Window != (Window{2, 5}) {
		t.Fatalf("common window %+v, want 2..5", v.Window)
	}
	if v.Rate == nil || math.Abs(v.Rate.Value-30) > 1e-9 {
		t.Fatalf("rate %+v, want 10 + 20 = 30 txn/s over seconds 2..5", v.Rate)
	}
	union := metrics.NewHistogram()
	for _, x := range append(append([]int64{}, fast...), slow...) {
		_ = union.RecordValue(x)
	}
	p1, p2 := hdrhistogram.Import(r1.Latency["t"]).ValueAtQuantile(99), hdrhistogram.Import(r2.Latency["t"]).ValueAtQuantile(99)
	want := union.ValueAtQuantile(99)
	if mean := (p1 + p2) / 2; mean == want {
		t.Fatalf("test data too tame: the mean of the parts' p99s equals the union's p99 (%d)", want)
	}
	if got := v.Histogram("t").ValueAtQuantile(99); got != want || v.Latency[0].P99 != ms(want) {
		t.Fatalf("merged p99 %d µs (%v ms), want the union's %d µs", got, v.Latency[0].P99, want)
	}
	if v.Status != "complete" || len(v.Lines) != 2 {
		t.Fatalf("status %s with %d part lines", v.Status, len(v.Lines))
	}
}

// TestMergeReportsADeadPart: a part whose process is gone while it was
// running is shown dead, and the group is partial.
func TestMergeReportsADeadPart(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	r1 := partRun(start, []int64{100, 200}, []int64{1, 1, 1}, 0, 3)
	g := store.Group{Name: "g", Workload: "tpcb", Parts: 2, Start: start}
	parts := []store.GroupPart{{Part: 1, RunID: "a", Status: "complete"},
		{Part: 2, RunID: "b", Status: StatusRunning, Owner: "elsewhere:1", Heartbeat: start.Add(time.Second)}}
	v := merge(g, parts, map[int]*store.Run{1: r1}, start.Add(time.Second+StaleAfter+time.Second))
	if v.Status != "partial" || v.Lines[1].Status != StatusDead {
		t.Fatalf("status %s, part 2 %s; want partial and dead", v.Status, v.Lines[1].Status)
	}
}
