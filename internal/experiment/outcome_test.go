package experiment

import (
	"os"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/problem"
)

func TestFailures(t *testing.T) {
	rep := &Report{Steps: []StepResult{{Name: "a", InEffect: true}, {Name: "b"}}}
	if err := rep.Failure(); err == nil || !strings.Contains(err.Error(), `step "b"`) {
		t.Errorf("experiment failure %v", err)
	}
	rep.Steps = rep.Steps[:1]
	if err := rep.Failure(); err != nil {
		t.Errorf("in effect: %v", err)
	}
}

func TestSaveReport(t *testing.T) {
	lab := t.TempDir()
	a, err := SaveReport(lab, "crash", map[string]int{"missing": 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := SaveReport(lab, "crash", map[string]int{"missing": 2})
	if err != nil || a == b || !strings.HasPrefix(a, lab+"/experiments/crash-") {
		t.Fatalf("paths %q %q, %v", a, b, err)
	}
	if data, err := os.ReadFile(a); err != nil || string(data) != "{\n  \"missing\": 1\n}\n" {
		t.Errorf("saved %q, %v", data, err)
	}
}

// TestVerdictFailsWhenNotRestored: an experiment or audit that ran to its
// end but could not restore the settings exits non-zero and names the fix.
func TestVerdictFailsWhenNotRestored(t *testing.T) {
	rep := &Report{Steps: []StepResult{{Name: "a", InEffect: true}}}
	if err := rep.Verdict(nil, false); problem.ExitCode(err) != 1 || !strings.Contains(err.Error(), "pgoltp restore") {
		t.Errorf("experiment not restored: %v (exit %d)", err, problem.ExitCode(err))
	}
	rep.Restored = true
	if err := rep.Verdict(nil, false); err != nil {
		t.Errorf("experiment restored: %v", err)
	}
}
