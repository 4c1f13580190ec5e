package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// execute runs pgoltp with args in this process, in a lab of the test's
// own, and returns what the command returned.
func execute(t *testing.T, args ...string) error {
	t.Helper()
	var out bytes.Buffer
	rootCmd.SetOut(&out)
	rootCmd.SetErr(&out)
	rootCmd.SetArgs(append([]string{"--lab", filepath.Join(t.TempDir(), "lab")}, args...))
	return rootCmd.ExecuteContext(context.Background())
}

// wantBadInput fails unless err is bad input (exit 2) that says every one
// of want and none of unwanted.
func wantBadInput(t *testing.T, err error, want []string, unwanted ...string) {
	t.Helper()
	if problem.ExitCode(err) != problem.ExitBadInput {
		t.Fatalf("error %v (exit %d), want bad input (exit 2)", err, problem.ExitCode(err))
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	for _, u := range unwanted {
		if strings.Contains(err.Error(), u) {
			t.Errorf("error %q says %q", err, u)
		}
	}
}

// TestPlanValueNamedByPlanKey: a bad value in an experiment plan is reported
// by the plan's key, not by the flag a command would take for it (issue 26
// point 5: "--conns ... is negative" for a YAML plan), and before anything
// runs.
func TestPlanValueNamedByPlanKey(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(plan, []byte("workload: {kind: tpcc, scale: 1, clients: 20000}\nduration: 10s\nsteps:\n  - settings: {work_mem: 8MB}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantBadInput(t, execute(t, "experiment", plan),
		[]string{plan + ": workload.clients 20000: at most 10000", "fix the plan file"}, "--conns")

	versions := filepath.Join(dir, "versions.yaml")
	if err := os.WriteFile(versions, []byte("workload: {kind: tpcb}\nduration: 10s\nversions: [10, 15]\nbaseline:\n  settings: {max_wal_size: lots}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantBadInput(t, execute(t, "experiment", versions),
		[]string{"baseline.settings max_wal_size=lots for PostgreSQL 10", "fix or drop the baseline.settings"}, "--set")
}

// TestFlagValueNamedByFlag: the same field errors, from a command's flags,
// name the flag the user wrote, word for word as before they were field
// errors.
func TestFlagValueNamedByFlag(t *testing.T) {
	unreachable := "postgres://nobody@127.0.0.1:1/none" // never reached: the flags are checked first
	err := execute(t, "--dsn", unreachable, "tpcc", "run", "--conns", "20000")
	wantBadInput(t, err, nil)
	if want := "--conns 20000: at most 10000; see 'pgoltp tpcc run --help'"; err.Error() != want {
		t.Errorf("tpcc run --conns 20000: %q, want %q", err, want)
	}
	err = execute(t, "compare-versions", "--pg", "10,15", "--set", "max_wal_size=lots")
	wantBadInput(t, err, []string{"--set max_wal_size=lots for PostgreSQL 10", "; fix or drop the --set"}, "baseline")
	err = execute(t, "--dsn", unreachable, "tpcb", "load", "--scale", "0")
	wantBadInput(t, err, nil)
	if want := "invalid --scale 0: must be at least 1; run 'pgoltp tpcb load --help' for the flags"; err.Error() != want {
		t.Errorf("tpcb load --scale 0: %q, want %q", err, want)
	}
}

// TestRenamedFlagsExist: every flag a command names a field error by, when
// the flag is not the field's own words, is one of the command's flags.
func TestRenamedFlagsExist(t *testing.T) {
	for _, c := range []struct {
		command []string
		names   map[string]string
	}{
		{[]string{"tpcc", "run"}, tpccRunFlagNames},
		{[]string{"tpcc", "run"}, groupFlagNames},
		{[]string{"tpcb", "run"}, tpcbRunFlagNames},
		{[]string{"tpcb", "run"}, groupFlagNames},
		{[]string{"compare-versions"}, studyFlagNames},
	} {
		cmd, _, err := rootCmd.Find(c.command)
		if err != nil {
			t.Fatal(err)
		}
		for f, name := range c.names {
			flag := cmd.Flags().Lookup(strings.TrimPrefix(name, "--"))
			if strings.HasPrefix(name, "-") && !strings.HasPrefix(name, "--") {
				flag = cmd.Flags().ShorthandLookup(strings.TrimPrefix(name, "-"))
			}
			if flag == nil {
				t.Errorf("%v names field %s as %s, which it does not have", c.command, f, name)
			}
		}
	}
}
