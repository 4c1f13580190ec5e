package tpcc

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// TestResolveDrivesEveryWarehouse: by default both modes run 10 terminals per
// warehouse on fewer connections, and the terminals' homes give every
// warehouse ten terminals with Stock-Level districts 1..10 (clauses 4.2.2,
// 2.8.1.1).
func TestResolveDrivesEveryWarehouse(t *testing.T) {
	for _, mode := range []string{ModeNoWait, ModeSpec} {
		for _, conns := range []int{0, 1} {
			o := RunOptions{Mode: mode, Conns: conns}
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			const loaded = 3
			if err := o.Resolve(loaded); err != nil {
				t.Fatalf("%s conns %d: %v", mode, conns, err)
			}
			if o.Warehouses != loaded || o.Terminals != 10*loaded {
				t.Errorf("%s conns %d: %d warehouses, %d terminals; want %d and %d", mode, conns, o.Warehouses, o.Terminals, loaded, 10*loaded)
			}
			if o.Conns < 1 || o.Conns > o.Terminals || (conns > 0 && o.Conns != conns) {
				t.Errorf("%s conns %d: resolved to %d connections", mode, conns, o.Conns)
			}
			districts := map[int]map[int]bool{}
			for i := range o.Terminals {
				w, d := terminalHome(i, 1, o.Warehouses)
				if districts[w] == nil {
					districts[w] = map[int]bool{}
				}
				districts[w][d] = true
			}
			for w := 1; w <= loaded; w++ {
				if len(districts[w]) != 10 {
					t.Errorf("%s: warehouse %d has Stock-Level districts %v, want 1..10", mode, w, districts[w])
				}
			}
		}
	}
}

// TestResolvePartDrivesItsOwnRange: part k of n gets its own contiguous
// range of home warehouses, ten terminals each by default, while remote
// warehouses still come from all loaded ones (the terminal's warehouses).
func TestResolvePartDrivesItsOwnRange(t *testing.T) {
	const loaded = 5
	seen := map[int]int{}
	for k := 1; k <= 2; k++ {
		o := RunOptions{Part: workload.Part{K: k, N: 2}}
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		if err := o.Resolve(loaded); err != nil {
			t.Fatal(err)
		}
		first, count := o.homes()
		if o.Terminals != 10*count {
			t.Errorf("part %d/2: %d terminals for %d home warehouses, want 10 each", k, o.Terminals, count)
		}
		r := &runner{opts: o, loaded: loaded}
		for i := range o.Terminals {
			term := r.newTerminal(i, uint64(i+1), Constants{}, time.Now())
			if term.w < first || term.w >= first+count {
				t.Fatalf("part %d/2: terminal %d has home warehouse %d outside %d..%d", k, i, term.w, first, first+count-1)
			}
			if term.warehouses != loaded {
				t.Fatalf("part %d/2: remote warehouses drawn from %d, want all %d loaded", k, term.warehouses, loaded)
			}
			seen[term.w]++
		}
	}
	for w := 1; w <= loaded; w++ {
		if seen[w] != 10 {
			t.Errorf("warehouse %d has %d home terminals over both parts, want 10", w, seen[w])
		}
	}
}

func TestResolveRefuses(t *testing.T) {
	tests := []struct {
		name     string
		opts     RunOptions
		loaded   int
		mentions string // "" = accepted
	}{
		{"fewer terminals than warehouses", RunOptions{Terminals: 3}, 4, "warehouses 3"},
		{"fewer terminals than warehouses, spec", RunOptions{Mode: ModeSpec, Terminals: 1}, 2, "warehouses 1"},
		{"one terminal per warehouse", RunOptions{Terminals: 4}, 4, ""},
		{"first N warehouses", RunOptions{Warehouses: 1, Terminals: 1}, 4, ""},
		{"more warehouses than loaded", RunOptions{Warehouses: 5}, 4, "warehouses 5"},
		{"spec, 11 terminals per warehouse", RunOptions{Mode: ModeSpec, Terminals: 22}, 2, "allow-non-compliant"},
		{"spec, 11 per warehouse allowed", RunOptions{Mode: ModeSpec, Terminals: 22, AllowNonCompliant: true}, 2, ""},
		{"nowait, 11 per warehouse", RunOptions{Terminals: 22}, 2, ""},
		{"part 2 of 3 on 3 warehouses", RunOptions{Part: workload.Part{K: 2, N: 3}}, 3, ""},
		{"more parts than warehouses", RunOptions{Part: workload.Part{K: 1, N: 3}}, 2, "at most 2 parts"},
		{"more parts than driven warehouses", RunOptions{Warehouses: 1, Part: workload.Part{K: 1, N: 2}}, 4, "at most 1 parts"},
	}
	for _, tc := range tests {
		o := tc.opts
		if err := o.Validate(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		err := o.Resolve(tc.loaded)
		switch {
		case tc.mentions == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.mentions != "" && (err == nil || !errors.Is(err, ErrBadOption) || !strings.Contains(err.Error(), tc.mentions)):
			t.Errorf("%s: error %v, want ErrBadOption naming %s", tc.name, err, tc.mentions)
		case err != nil && strings.Contains(err.Error(), "\n"):
			t.Errorf("%s: error is more than one line: %q", tc.name, err)
		}
	}
}

// TestValidateMinimumMix: spec mode refuses a mix below the minimums of
// clause 5.2.3 unless told explicitly; no-wait mode runs it (marked).
func TestValidateMinimumMix(t *testing.T) {
	low := []int{50, 40, 4, 3, 3}
	tests := []struct {
		opts RunOptions
		ok   bool
	}{
		{RunOptions{Mode: ModeSpec, Weights: low}, false},
		{RunOptions{Mode: ModeSpec, Weights: low, AllowNonCompliant: true}, true},
		{RunOptions{Mode: ModeSpec, Weights: []int{45, 43, 4, 4, 4}}, true},
		{RunOptions{Mode: ModeNoWait, Weights: low}, true},
	}
	for _, tc := range tests {
		err := tc.opts.Validate()
		if (err == nil) != tc.ok || (err != nil && !strings.Contains(err.Error(), "allow-non-compliant")) {
			t.Errorf("%s %v allow=%v: error %v, want ok=%v", tc.opts.Mode, tc.opts.Weights, tc.opts.AllowNonCompliant, err, tc.ok)
		}
	}
	if MixMeetsMinimum(low) || !MixMeetsMinimum([]int{45, 43, 4, 4, 4}) || MixMeetsMinimum([]int{48, 42, 4, 3, 3}) {
		t.Error("MixMeetsMinimum misjudges a mix")
	}
	if got := optionDepartures(RunOptions{Mode: ModeNoWait, Weights: low}); !containsAny(got, "5.2.3") {
		t.Errorf("departures of a low mix: %q", got)
	}
	if got := optionDepartures(RunOptions{Mode: ModeNoWait, Weights: DefaultWeights()}); containsAny(got, "5.2.3") {
		t.Errorf("the default deck is marked below the minimum mix: %q", got)
	}
}

// TestMaxTpmCPerWarehouse: the efficiency ceiling follows the mix. The
// standard's 12.86 is for 45/43/4/4/4; the deck's is worked out here from the
// times of clause 5.2.5.7 (keying + mean think, seconds).
func TestMaxTpmCPerWarehouse(t *testing.T) {
	if got := MaxTpmCPerWarehouse([]int{45, 43, 4, 4, 4}, 1); math.Abs(got-12.86) > 0.005 {
		t.Errorf("45/43/4/4/4: %.4f, want 12.86", got)
	}
	cycle := (10*(18+12) + 10*(3+12) + 1*(2+10) + 1*(2+5) + 1*(2+5)) / 23.0
	deck := 10 * (10 / 23.0) * 60 / cycle
	if got := MaxTpmCPerWarehouse(DefaultWeights(), 1); math.Abs(got-deck) > 1e-9 || math.Abs(got-12.86) < 0.1 {
		t.Errorf("deck: %.4f, want %.4f (and not 12.86)", got, deck)
	}
	if got := MaxTpmCPerWarehouse(DefaultWeights(), 0.5); math.Abs(got-2*deck) > 1e-9 {
		t.Errorf("keying scale 0.5: %.4f, want %.4f", got, 2*deck)
	}
}

// TestSkippedDeliveriesAudit: clause 2.7.4.2 bounds the Deliveries that
// skipped any district (1%, or one, whichever is greater), not districts.
func TestSkippedDeliveriesAudit(t *testing.T) {
	tests := []struct {
		deliveries, skippedDeliveries, skippedDistricts int64
		status                                          string
	}{
		{200, 3, 3, AuditFail},     // 1.5% of Deliveries; 0.15% of districts
		{200, 2, 2, AuditPass},     // exactly 1%
		{50, 1, 10, AuditPass},     // one is allowed when 1% is less than one
		{50, 2, 2, AuditFail},      // two of 50
		{1000, 10, 100, AuditPass}, // 1%, however many districts each skipped
	}
	for _, tc := range tests {
		rec := metrics.NewRecorder(kindNames(), counterNames()...)
		l := rec.NewLocal()
		for range tc.deliveries {
			l.Record(kindDeliveryDeferred, time.Millisecond)
		}
		l.Add(kindDeliveryDeferred, cntSkipped, tc.skippedDistricts)
		l.Add(kindDeliveryDeferred, cntSkippedDeliveries, tc.skippedDeliveries)
		var got *Audit
		for _, a := range audit(rec.Interval(), 2) {
			if a.Clause == "2.7.4.2" {
				got = &a
			}
		}
		if got == nil {
			t.Fatal("no clause 2.7.4.2 audit")
		}
		want := 100 * float64(tc.skippedDeliveries) / float64(tc.deliveries)
		if got.Status != tc.status || got.Samples != tc.deliveries || math.Abs(got.Observed-want) > 1e-9 {
			t.Errorf("%d of %d Deliveries skipped: %+v, want %s with %.2f%% of %d", tc.skippedDeliveries, tc.deliveries, *got, tc.status, want, tc.deliveries)
		}
	}
}

// TestAuditsCiteTPCC511: every audit names the TPC-C 5.11 clause that
// defines its input (clause 2.x), not another tool's numbering.
func TestAuditsCiteTPCC511(t *testing.T) {
	rec := metrics.NewRecorder(kindNames(), counterNames()...)
	want := map[string]bool{"2.4.1.3": true, "2.4.1.4": true, "2.4.1.5": true, "2.5.1.2": true, "2.6.1.2": true, "2.7.4.2": true}
	for _, a := range audit(rec.Interval(), 2) {
		if !want[a.Clause] {
			t.Errorf("audit %q cites clause %s", a.Name, a.Clause)
		}
	}
}

// TestSummaryStatesTheMetricAndCompliance: tpmC is truncated (clause 5.4.4),
// the summary says what tpmC and NOPM count, and lists non-compliance and the
// response time checks of clause 5.2.5.3.
func TestSummaryStatesTheMetricAndCompliance(t *testing.T) {
	opts := RunOptions{Mode: ModeSpec, Weights: []int{50, 40, 4, 3, 3}, Warehouses: 1, Terminals: 10, Conns: 2, AllowNonCompliant: true}
	txns := []TxnResult{
		{Name: "new_order", Count: 100, P90Limit: 5 * time.Second, P90OK: false,
			Latency: metrics.LatencySummary{Count: 100, Mean: 2 * time.Second, P90: 6 * time.Second}},
		{Name: "payment", Count: 100, P90Limit: 5 * time.Second, P90OK: true,
			Latency: metrics.LatencySummary{Count: 100, Mean: 3 * time.Second, P90: time.Second}},
	}
	r := &RunResult{Options: opts, TpmC: 12.99, TpmTotal: 27.6, NOPM: 12.7, LoadedWarehouses: 1, Txns: txns,
		NonCompliant: departures(opts, time.Minute, txns, nil)}
	var b bytes.Buffer
	if err := r.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	sum := b.String()
	for _, want := range []string{"tpmC 12 ", "tpmTOTAL 27 ", "NOPM 12 ", "rolled-back ones included (clause 5.4.2)",
		"INDICATIVE, not a TPC-C result", "clause 5.2.3", "new_order 90th percentile 6.00s exceeds",
		"FAIL: over the limit"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
}
