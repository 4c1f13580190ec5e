package tpcc

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/metrics"
)

// containsAny reports whether one of lines contains sub.
func containsAny(lines []string, sub string) bool {
	for _, l := range lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

// finishedRun folds what record records into one measured interval, as a
// run's aggregator does, and returns the finished result.
func finishedRun(opts RunOptions, record func(l *metrics.Local)) *RunResult {
	start := time.Now()
	rec := metrics.NewRecorder(kindNames(), counterNames()...)
	record(rec.NewLocal())
	res := &RunResult{Options: opts, LoadedWarehouses: max(1, opts.Warehouses)}
	a := newAggregator(opts, rec, nil, res, start, start)
	a.interval(rec.Interval(), true)
	a.finish()
	return res
}

// specOptions are a spec-mode run as the standard has it, but for the
// measurement interval (a test cannot run two hours).
func specOptions() RunOptions {
	return RunOptions{Mode: ModeSpec, Warehouses: 1, Terminals: 10, Conns: 2, Weights: DefaultWeights(),
		KeyingScale: 1, Ramp: time.Minute, DeliveryLog: io.Discard}
}

// TestDeliveryQueueingBelowItsMeanIsCompliant: the Delivery's queueing takes
// whole microseconds, so a few outliers pull its mean above its 90th
// percentile (2µs against 5µs here). The only response time rule is the
// limit ("Delivery (the queuing) 5 s"), so this decides nothing: no
// departure, no FAIL. The old code called it "p90 below the mean".
func TestDeliveryQueueingBelowItsMeanIsCompliant(t *testing.T) {
	res := finishedRun(specOptions(), func(l *metrics.Local) {
		for range 90 {
			l.Record(kindDelivery, 2*time.Microsecond)
		}
		for range 10 {
			l.Record(kindDelivery, 32*time.Microsecond)
		}
	})
	d := res.Txn("delivery")
	if d.Latency.P90 >= d.Latency.Mean {
		t.Fatalf("the sample is not the case: p90 %v, mean %v", d.Latency.P90, d.Latency.Mean)
	}
	if !d.P90OK || containsAny(res.NonCompliant, "delivery") {
		t.Errorf("a Delivery queueing p90 %v, mean %v departs: %q", d.Latency.P90, d.Latency.Mean, res.NonCompliant)
	}
	var b bytes.Buffer
	if err := res.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.Contains(line, "delivery") && strings.Contains(line, "FAIL") {
			t.Errorf("summary fails the Delivery: %s", line)
		}
	}
}

// TestDeparturesAreListed: each option that changes what the standard fixes
// is listed with its clause, and the run is then indicative, in the JSON
// too; only a run with none is compliant.
func TestDeparturesAreListed(t *testing.T) {
	keying := specOptions()
	keying.KeyingScale = 0.02
	noRamp := specOptions()
	noRamp.Ramp = 0
	noLog := specOptions()
	noLog.DeliveryLog = nil
	fewTerminals := specOptions()
	fewTerminals.Terminals = 5
	tests := []struct {
		name     string
		opts     RunOptions
		measured time.Duration
		want     string
	}{
		{"keying scale 0.02", keying, 3 * time.Hour, "scaled by 0.02 (clause 5.2.5.7"},
		{"60 s, no ramp-up", noRamp, time.Minute, "no ramp-up"},
		{"60 s, no ramp-up", noRamp, time.Minute, "measured 1m0s, shorter than the 2-hour"},
		{"no-wait", RunOptions{Mode: ModeNoWait, Warehouses: 1, Terminals: 10, Weights: DefaultWeights(), Ramp: time.Minute, DeliveryLog: io.Discard}, 3 * time.Hour, "no-wait mode"},
		{"no Delivery result file", noLog, 3 * time.Hour, "clause 2.7.2"},
		{"5 terminals", fewTerminals, 3 * time.Hour, "10 per warehouse (clause 4.2.2)"},
	}
	for _, tc := range tests {
		got := departures(tc.opts, tc.measured, nil, nil)
		if !containsAny(got, tc.want) || compliance(got) != Indicative {
			t.Errorf("%s: departures %q, want one with %q and indicative", tc.name, got, tc.want)
		}
	}
	if got := departures(specOptions(), 3*time.Hour, nil, nil); len(got) != 0 || compliance(got) != Compliant {
		t.Errorf("a run as the standard has it departs: %q", got)
	}

	res := finishedRun(keying, func(l *metrics.Local) { l.Record(kindNewOrder, time.Millisecond) })
	out, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Compliance   *string  `json:"compliance"`
		NonCompliant []string `json:"non_compliant"`
	}
	if err := json.Unmarshal(out, &j); err != nil {
		t.Fatal(err)
	}
	if j.Compliance == nil || *j.Compliance != Indicative || !containsAny(j.NonCompliant, "scaled by 0.02") {
		t.Errorf("JSON of a keying-scale 0.02 run: compliance %v, departures %q", j.Compliance, j.NonCompliant)
	}
	var b bytes.Buffer
	if err := res.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "INDICATIVE, not a TPC-C result") || !strings.Contains(b.String(), "scaled by 0.02") {
		t.Errorf("the summary does not label the run:\n%s", b.String())
	}
	if notes := strings.Join(res.Result().Notes, "\n"); !strings.Contains(notes, "INDICATIVE, departs from TPC-C 5.11: keying and think times scaled by 0.02") {
		t.Errorf("the stored notes (the report's) do not list the departure:\n%s", notes)
	}
}
