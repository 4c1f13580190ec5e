package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestExperimentScriptPlanBadInput: a plan of kind script whose script
// cannot be read or does not parse is one line naming the plan's key (and
// the file, line and column), exit 2, before any server is touched.
func TestExperimentScriptPlanBadInput(t *testing.T) {
	global.dsn = ""
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.sql")
	if err := os.WriteFile(bad, []byte("SELECT 1;\n\\set x (1 + \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		workload string
		want     []string
	}{
		{"{kind: script, files: [" + filepath.Join(dir, "missing.sql") + "]}", []string{"workload.files", "missing.sql", "could not open file"}},
		{"{kind: script, files: [" + bad + "@2]}", []string{"workload.files", "bad.sql:2:", "syntax error"}},
		{"{kind: script, builtins: [nosuch]}", []string{"workload.builtins nosuch", "no builtin script"}},
		{"{kind: script, protocol: binary}", []string{"workload.protocol binary", "simple, extended, prepared"}},
		{"{kind: tpcb, files: [x.sql]}", []string{"workload.files is a key of kind script"}},
	} {
		plan := filepath.Join(dir, "plan.yaml")
		text := "workload: " + c.workload + "\nduration: 2s\nrepetitions: 2\nsteps:\n  - settings: {commit_delay: 10}\n"
		if err := os.WriteFile(plan, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		err := execute(t, "experiment", plan)
		t.Log(err)
		wantBadInput(t, err, c.want, "\n", "-f ", "--file")
	}
}
