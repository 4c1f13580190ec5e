package lang

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestShellMatchesPgbench: \setshell's command line and its result parsing
// give what the real pgbench gives (value or error text).
func TestShellMatchesPgbench(t *testing.T) {
	bin := realPgbench(t)
	dsn := pgtest.NewDatabase(t)
	for _, cmdline := range []string{
		"echo 42", "echo '  -7  '", "echo abc", "printf ''", "echo '   '", "echo 12abc", "echo ::x :v",
		"echo 99999999999", "echo :nosuch", "printf '5\\nxyz'", "echo -", "echo " + strings.Repeat("y", 300),
	} {
		script := `\set v 3` + "\n" + `\setshell x ` + cmdline + "\n" + `\set y debug(:x)` + "\n"
		stderr, _ := runPgbench(t, bin, script, "-n", "-t", "1", dsn)
		want := ""
		if d := debugLines(stderr); len(d) == 1 {
			want = d[0]
		} else {
			for _, l := range strings.Split(stderr, "\n") {
				if strings.HasPrefix(l, "pgbench: error: ") && !strings.Contains(l, "aborted") {
					want = strings.TrimPrefix(l, "pgbench: error: ")
					break
				}
			}
			if i := strings.Index(stderr, want); want != "" && strings.Contains(want, "(not \"") {
				want = stderr[i : i+strings.Index(stderr[i:], "\")")+2]
			}
		}
		s, err := ParseScript("sh.sql", script)
		if err != nil {
			t.Fatal(err)
		}
		if got := shellOutcome(s.Commands[1]); got != want {
			t.Errorf("%s:\n got %s\nwant %s", cmdline, got, want)
		}
	}
}

func shellOutcome(c *Command) string {
	line, err := c.ShellCommand(func(n string) (string, bool) { return "3", n == "v" })
	if err != nil {
		return err.Error()
	}
	out, err := exec.Command("/bin/sh", "-c", line).Output()
	if err != nil {
		return err.Error()
	}
	v, err := c.ShellResult(string(out))
	if err != nil {
		return err.Error()
	}
	return DebugLine(0, 3, IntValue(v))
}
