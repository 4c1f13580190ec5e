package experiment

import (
	"bytes"
	"strings"
	"testing"
)

// TestReportOfAStepStoppedBeforeItsFirstRun: an experiment stopped after a
// step's first baseline run (a huge page reservation the kernel cut short
// did this) reports that no step run finished, not an empty verdict and a
// p99 of 0s → 0s.
func TestReportOfAStepStoppedBeforeItsFirstRun(t *testing.T) {
	rep := &Report{Plan: "p", Steps: []StepResult{{Name: "huge-pages",
		Runs: []RunRecord{{Arm: ArmBaseline, Repetition: 1, TPS: 2226.5, Checkpoint: "0/1"}}}}}
	summarize(&rep.Steps[0], 0.95, "")
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	if !strings.Contains(out, "no step run finished") || strings.Contains(out, "verdict (objective") || strings.Contains(out, "p99: 0s → 0s") {
		t.Errorf("a step without a step run:\n%s", out)
	}
}
