package experiment

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/settings"
)

// TestExperimentReportKeepsNoSecret: an experiment whose step sets
// primary_conninfo with a password writes it neither in LAB/experiments/*.json
// nor in its text report, whether the run saw the value it asked for or not.
func TestExperimentReportKeepsNoSecret(t *testing.T) {
	const conninfo = "host=x password=secret"
	values := map[string]string{"primary_conninfo": conninfo, "work_mem": "64MB"}
	var same, differs RunRecord
	same.compare(values, map[string]settings.Live{"primary_conninfo": {Name: "primary_conninfo", Setting: conninfo}, "work_mem": {Name: "work_mem", Setting: "64MB"}})
	differs.compare(values, map[string]settings.Live{"primary_conninfo": {Name: "primary_conninfo", Setting: "host=y password=secret"}})
	rep := &Report{Plan: "p", Baseline: settings.Labelled(15, values),
		Steps: []StepResult{{Name: "s", Settings: settings.Labelled(15, values), Runs: []RunRecord{same, differs}}}}
	// A record filled by hand, not through compare, is redacted by the writer too.
	rep.Steps[0].Runs = append(rep.Steps[0].Runs, RunRecord{Arm: ArmStep, Observed: map[string]string{"primary_conninfo": conninfo}})
	path, err := SaveReport(t.TempDir(), "experiment", rep)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(saved), "secret") {
		t.Errorf("the saved experiment report holds the password:\n%s", saved)
	}
	if !strings.Contains(string(saved), `"work_mem": "64MB"`) {
		t.Errorf("the saved report lost an ordinary setting:\n%s", saved)
	}
	var text bytes.Buffer
	summarize(&rep.Steps[0], 0.95, settings.Safe)
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "secret") {
		t.Errorf("the text report holds the password:\n%s", text.String())
	}
}
