package experiment

import (
	"github.com/pgoltp/pgoltp/internal/workload"

	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/settings"
)

// TestSummarizeVerdicts: the verdict line says better/worse only when the
// interval excludes zero, labels unsafe settings, follows "no measurable
// difference" with the minimum detectable effect, and says "not in effect"
// (never better or worse) when a run did not have the step's settings.
func TestSummarizeVerdicts(t *testing.T) {
	// runs builds B S B S B with per-second samples around the given levels
	// (±2% alternating noise, so the within-run noise is known and small).
	runs := func(base, step float64, mismatch bool) []RunRecord {
		var out []RunRecord
		for slot := 0; slot < 5; slot++ {
			arm, level := ArmBaseline, base
			if slot%2 == 1 {
				arm, level = ArmStep, step
			}
			per := make([]float64, 10)
			for i := range per {
				per[i] = level * (1 + 0.02*float64(1-2*(i%2)))
			}
			r := RunRecord{Arm: arm, Repetition: slot/2 + 1, TPS: level,
				Measurement: workload.Measurement{PerSecond: per, P99: time.Millisecond}}
			if mismatch && arm == ArmStep {
				r.Mismatch = []string{"synchronous_commit=on (wanted off)"}
			}
			out = append(out, r)
		}
		return out
	}
	cases := []struct {
		name       string
		base, step float64
		risk       settings.Risk
		mismatch   bool
		verdict    string
		summary    []string
		notSummary []string
	}{
		{"unsafe gain", 1000, 2000, settings.CanLoseDataOnCrash, false, VerdictBetter,
			[]string{"better (unsafe: can lose data on crash)"}, []string{"cannot be seen"}},
		{"loss", 1000, 800, settings.Safe, false, VerdictWorse, []string{"worse"}, []string{"unsafe"}},
		{"nothing", 1000, 1000, settings.Safe, false, VerdictSame,
			[]string{"no measurable difference (effects smaller than ±", "% cannot be seen with this noise)"}, nil},
		{"not in effect", 1000, 2000, settings.CanLoseDataOnCrash, true, VerdictNotInEffect,
			[]string{"not in effect: synchronous_commit=on (wanted off)"}, []string{"better"}},
	}
	for _, c := range cases {
		sr := StepResult{Runs: runs(c.base, c.step, c.mismatch)}
		summarize(&sr, 0.95, c.risk)
		if sr.Verdict != c.verdict {
			t.Errorf("%s: verdict %q, want %q (effect %+v)", c.name, sr.Verdict, c.verdict, sr.Throughput)
		}
		for _, want := range c.summary {
			if !strings.Contains(sr.Summary, want) {
				t.Errorf("%s: summary %q lacks %q", c.name, sr.Summary, want)
			}
		}
		for _, not := range c.notSummary {
			if strings.Contains(sr.Summary, not) {
				t.Errorf("%s: summary %q says %q", c.name, sr.Summary, not)
			}
		}
	}
}
