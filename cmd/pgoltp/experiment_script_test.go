package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
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

// TestTuneScriptFlagsBadInput: tune's script options are checked before
// anything runs and named by their flags; on another workload they are
// refused rather than ignored.
func TestTuneScriptFlagsBadInput(t *testing.T) {
	global.dsn = ""
	bad := filepath.Join(t.TempDir(), "bad.sql")
	if err := os.WriteFile(bad, []byte("\\sleep 1 fortnights\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"tune", "--workload", "script", "-f", "/nonexistent/hot.sql@5"}, []string{"-f/--file /nonexistent/hot.sql@5", "could not open file"}},
		{[]string{"tune", "--workload", "script", "-f", bad}, []string{"-f/--file", "bad.sql:1:"}},
		{[]string{"tune", "--workload", "script", "-b", "select-only@x"}, []string{"-b/--builtin select-only@x"}},
		{[]string{"tune", "--workload", "script", "-D", "hot"}, []string{"-D/--define hot", "name=value"}},
		{[]string{"tune", "--workload", "script", "-M", "binary"}, []string{"-M/--protocol binary"}},
		{[]string{"tune", "--workload", "tpcb", "-f", "hot.sql"}, []string{"--file is an option of --workload script"}},
	} {
		resetFlags(t, "tune")
		err := execute(t, c.args...)
		t.Log(err)
		wantBadInput(t, err, c.want, "\n")
	}
	resetFlags(t, "tune")
}

// resetFlags puts the flags of the command name back to their defaults:
// cobra keeps them between executions, and lists grow.
func resetFlags(t *testing.T, name string) {
	c, _, err := rootCmd.Find([]string{name})
	if err != nil {
		t.Fatal(err)
	}
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if s, ok := f.Value.(pflag.SliceValue); ok {
			_ = s.Replace(nil)
		} else {
			_ = f.Value.Set(f.DefValue)
		}
		f.Changed = false
	})
}

// TestCompareVersionsScriptBadInput: compare-versions takes --workload
// script with the same options, checked before any cluster is made; init
// none cannot be compared (each major's cluster starts empty).
func TestCompareVersionsScriptBadInput(t *testing.T) {
	global.dsn = ""
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"compare-versions", "--pg", "14,15", "--workload", "script", "-f", "/nonexistent/mine.sql"}, []string{"-f/--file /nonexistent/mine.sql", "could not open file"}},
		{[]string{"compare-versions", "--pg", "14,15", "--workload", "script", "--init", "none"}, []string{"--init none", "cannot be compared across majors"}},
		{[]string{"compare-versions", "--pg", "14,15", "--workload", "tpcb", "-b", "select-only"}, []string{"--builtin is an option of --workload script"}},
	} {
		resetFlags(t, "compare-versions")
		err := execute(t, c.args...)
		t.Log(err)
		wantBadInput(t, err, c.want, "\n")
	}
	resetFlags(t, "compare-versions")
}

// TestPgbenchGroupFlagsBadInput: pgoltp pgbench's --group and --part go
// with --record, and are checked as a run command's (exit 2, one line).
func TestPgbenchGroupFlagsBadInput(t *testing.T) {
	global.dsn = ""
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"pgbench", "--group", "g", "--part", "1/2", "-T", "1"}, []string{"go with --record"}},
		{[]string{"pgbench", "--record", "--part", "1/2", "-T", "1"}, []string{"--part 1/2 needs --group"}},
		{[]string{"pgbench", "--record", "--group", "g", "--part", "3/2", "-T", "1"}, []string{"3/2"}},
		{[]string{"pgbench", "--record", "--group", "g", "--part", "1/2", "--group-timeout", "soon", "-T", "1"}, []string{"--group-timeout soon"}},
	} {
		err := execute(t, c.args...)
		t.Log(err)
		wantBadInput(t, err, c.want, "\n")
	}
}

// TestSweepScriptFlagsBadInput: sweep takes the script workload's options
// too, checked before anything runs.
func TestSweepScriptFlagsBadInput(t *testing.T) {
	global.dsn = ""
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"sweep", "--workload", "script", "--clients", "1,2", "-f", "/nonexistent/mine.sql"}, []string{"-f/--file /nonexistent/mine.sql", "could not open file"}},
		{[]string{"sweep", "--workload", "tpcb", "--clients", "1,2", "-D", "hot=1"}, []string{"--define is an option of --workload script"}},
	} {
		resetFlags(t, "sweep")
		err := execute(t, c.args...)
		t.Log(err)
		wantBadInput(t, err, c.want, "\n")
	}
	resetFlags(t, "sweep")
}
