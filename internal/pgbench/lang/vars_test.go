package lang

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestVarsConvertBetweenTextAndValue: text set by -D is parsed when an
// expression uses it and values get pgbench's text when substituted; names
// are checked only when a variable is created; clones are independent.
func TestVarsConvertBetweenTextAndValue(t *testing.T) {
	vs := NewVars()
	if err := vs.SetText("option -D", "n", "1.50"); err != nil {
		t.Fatal(err)
	}
	if v, err := vs.Lookup("n"); err != nil || v != DoubleValue(1.5) {
		t.Errorf("Lookup(n) = %v, %v", v, err)
	}
	if s, _ := vs.Text("n"); s != "1.50" {
		t.Errorf("Text(n) = %q, want the text as given", s)
	}
	if err := vs.Set("set", "d", DoubleValue(1.0/3)); err != nil {
		t.Fatal(err)
	}
	if s, _ := vs.Text("d"); s != "0.333333333333333" {
		t.Errorf("Text(d) = %q", s)
	}
	if err := vs.Set("set", "1x", IntValue(1)); err == nil || err.Error() != `set: invalid variable name: "1x"` {
		t.Errorf("bad name: %v", err)
	}
	if _, err := vs.Lookup("nosuch"); err == nil || err.Error() != `undefined variable "nosuch"` {
		t.Errorf("undefined: %v", err)
	}
	c := vs.Clone()
	_ = c.Set("set", "n", IntValue(7))
	if v, _ := vs.Lookup("n"); v != DoubleValue(1.5) {
		t.Error("a clone's change reached the original")
	}
}

// TestSeedErrorsMatchPgbench: bad seeds fail with pgbench's lines, and
// accepted ones log the seed pgbench logs.
func TestSeedErrorsMatchPgbench(t *testing.T) {
	bin := offlinePgbench(t)
	for _, c := range []struct{ env, flag string }{
		{"abc", ""}, {"", "x1"}, {"", "12 "}, {"5", "-1"}, {"", "99999999999999999999999"}, {"", " +7"}, {"", ""},
	} {
		args := []string{"-n", "-t", "1", "-h", "/nonexistent", "-p", "1", "-b", "select-only"}
		var env, flag *string
		if c.flag != "" {
			args = append(args, "--random-seed="+c.flag)
			flag = &c.flag
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = filterEnv(os.Environ(), "PGBENCH_RANDOM_SEED=")
		if c.env != "" {
			cmd.Env = append(cmd.Env, "PGBENCH_RANDOM_SEED="+c.env)
			env = &c.env
		}
		out, _ := cmd.CombinedOutput()
		_, info, err := ChooseSeed(env, flag)
		var want []string
		for _, l := range info {
			want = append(want, "pgbench: "+l)
		}
		if err != nil {
			want = append(want, "pgbench: error: "+err.Error())
		}
		got := strings.Split(strings.TrimSpace(string(out)), "\n")
		if err == nil {
			got = got[:min(len(got), len(want))] // then it tries to connect
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("env %q flag %q:\n got %s\nwant %s", c.env, c.flag, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

func filterEnv(env []string, prefix string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, prefix) {
			out = append(out, e)
		}
	}
	return out
}
