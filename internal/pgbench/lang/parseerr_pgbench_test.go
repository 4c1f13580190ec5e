package lang

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// badScripts fail to parse; pgbench reports them before connecting.
var badScripts = []string{
	"\\set x 1 +\n", "\\set x 1 +", "select 1;\n\\set x foo(1)\n", "\\sleep 1 xs\n", "\\gset\n",
	"select 1;\n\\if 1\n", "\\set x 1 < 2 < 3\n", "\\set\n", "\\set x abs(1,2)\n",
	"\\set x 99999999999999999999 + 1\n", "\\sleep a b c\n", "select 1 \\gset\nselect 1 \\gset\n\\gset\n",
	"\\foo bar\n", "\\set x 1 @ 2\n", "\\set x foo(1) @ $\n", "\\set x 1e400\n", "\\set x 9223372036854775808\n",
	"\\set x least()\n", "\\set x hash(1,2,3)\n", "\\set x permute(1)\n", "\\set x case when 1 then 2\n",
	"\\set x 1 is 2\n", "\\set x (1\n", "\\set x f(,,1)\n", "\\set x abs(1,)\n", "\\sleep\n", "\\sleep 1 2 3\n",
	"\\sleep +x\n", "\\sleep 10 minutes\n", "\\setshell x\n", "\\shell\n", "\\else 1\n", "\\endif x\n",
	"\\startpipeline now\n", "\\gset a b\n", "\\elif true\n", "\\if true\n\\else\n\\else\n\\endif\n",
	"\\if true\n\\else\n\\elif false\n\\endif\n", "\\endif\n", "\\else\n", "-- nothing\n", "",
	"\\set x 1 \\\n + \n", "\\set x 1\\\n +\n", "\\set x :\n", "\\set x 1 !\n", "\\set x .\n",
	"\\set x 1 ~ 2\n", "\\set x 1 2\n", "\\set x - 9223372036854775808 - 9223372036854775808\n",
	"\\set x not\n", "\\set x isnull is true\n", "\\set x random(1, 2)) \n", "\\set x 1\n\\gset\n", "\\set x 1.5.3\n", "\\set x 1 is not 3\n",
	"\\set x case 1 end\n", "\\set x case when 1 then 2 else end\n", "\\set x 1 +\r\n", "\\if\n\\endif\n", "\\set x 1 +\nselect 1;\n",
	"U&'x'$1e'\\'::\\set y 1\n\\gset\n", "$1e'\\'::;\n\\endif\n", "1e'\\'::;\n\\endif\n",
	"\\set x\n", "\\foo " + strings.Repeat("w ", 300) + "\n", "\\shell echo " + strings.Repeat("w ", 300) + "\n",
}

// goodScripts parse: pgbench gets as far as connecting.
var goodScripts = []string{
	"\\sleep :\n", "select 1;\n\n\\gset\n", "\\set x abs(,1)\n", "\\\n\\set x 1\n", "\\ set x 1\n",
	"\\SET x 1\n", "select 1 \\aset\n", "\\set x - 9223372036854775808\n", "\\set x 1 isnull isnull\n",
	"select 'unterminated", "\\set x (1 < 2) < true\n", "\\startpipeline\nselect 1;\n\\endpipeline\n",
	"\\if 1\n\\if 2\n\\elif 3\n\\else\n\\endif\n\\elif 4\n\\endif\n", "\\sleep -5\n", "\\sleep 1 US\n",
	"\\setshell x echo 1\n\\shell true\n", "select :x \\gset\n", "\\set x case when 1 then 2 when 3 then 4 end\n",
}

// TestParseErrorsMatchPgbench: for each bad script this package returns the
// error pgbench prints, text for text (after "pgbench: error: ").
func TestParseErrorsMatchPgbench(t *testing.T) {
	bin := offlinePgbench(t)
	dir := t.TempDir()
	for _, src := range badScripts {
		path := filepath.Join(dir, "bad.sql")
		out, cmd := pgbenchParse(t, bin, path, src)
		want := strings.TrimSuffix(strings.TrimPrefix(out, "pgbench: error: "), "\n")
		if cmd.ProcessState.ExitCode() != 1 || strings.Contains(want, "connection") {
			t.Errorf("%q: pgbench did not fail on parsing:\n%s", src, out)
			continue
		}
		_, err := ParseScript(path, src)
		if err == nil {
			t.Errorf("%q: parsed, pgbench says:\n%s", src, want)
			continue
		}
		if err.Error() != want {
			t.Errorf("%q:\n got %s\nwant %s", src, err, want)
		}
	}
}

// TestValidScriptsMatchPgbench: scripts pgbench accepts parse here too.
func TestValidScriptsMatchPgbench(t *testing.T) {
	bin := offlinePgbench(t)
	path := filepath.Join(t.TempDir(), "good.sql")
	for _, src := range goodScripts {
		out, _ := pgbenchParse(t, bin, path, src)
		if !strings.Contains(out, "connection") {
			t.Errorf("%q: pgbench failed before connecting:\n%s", src, out)
		}
		if _, err := ParseScript(path, src); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// offlinePgbench finds pgbench without starting a server: parsing needs none.
func offlinePgbench(t *testing.T) string {
	if bin := os.Getenv("PGBENCH"); bin != "" {
		return bin
	}
	if bin, err := exec.LookPath("pgbench"); err == nil {
		return bin
	}
	return pgtest.Pgbench(t)
}

// pgbenchParse runs pgbench on src against a server that cannot exist, so
// that it stops at the script's first error or at connecting.
func pgbenchParse(t *testing.T, bin, path, src string) (string, *exec.Cmd) {
	t.Helper()
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-n", "-t", "1", "-h", "/nonexistent", "-p", "1", "-f", path)
	out, _ := cmd.CombinedOutput()
	return string(out), cmd
}

// TestTAPScriptsMatchPgbench: every q{...} script of pgbench's own TAP tests
// (PGBENCH_TAP_DIR=src/bin/pgbench/t) parses here exactly when it parses in
// pgbench, failing with the same text.
func TestTAPScriptsMatchPgbench(t *testing.T) {
	snippets := tapSnippets(t)
	if len(snippets) == 0 {
		t.Skip("PGBENCH_TAP_DIR does not name pgbench's TAP test directory")
	}
	bin := offlinePgbench(t)
	path := filepath.Join(t.TempDir(), "tap.sql")
	for _, src := range snippets {
		out, _ := pgbenchParse(t, bin, path, src)
		_, err := ParseScript(path, src)
		parsed := strings.Contains(out, "connection to server")
		switch {
		case parsed && err != nil:
			t.Errorf("%q: pgbench parses it, here: %v", src, err)
		case !parsed && err == nil:
			t.Errorf("%q: parsed here, pgbench says:\n%s", src, out)
		case !parsed && err.Error() != strings.TrimSuffix(strings.TrimPrefix(out, "pgbench: error: "), "\n"):
			t.Errorf("%q:\n got %v\nwant %s", src, err, out)
		}
	}
}

// TestQueryModeLimitMatchesPgbench: 256 parameters fail under -M extended
// and prepared with pgbench's text (255 pass), and simple mode has no limit.
func TestQueryModeLimitMatchesPgbench(t *testing.T) {
	bin := offlinePgbench(t)
	path := filepath.Join(t.TempDir(), "many.sql")
	for _, n := range []int{255, 256} {
		src := "\\set i 0\nSELECT LEAST(" + strings.Repeat(":i, ", n-1) + ":i)\n"
		s, err := ParseScript(path, src)
		if err != nil {
			t.Fatal(err)
		}
		for mode, flag := range map[QueryMode]string{QuerySimple: "simple", QueryExtended: "extended", QueryPrepared: "prepared"} {
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			out, _ := exec.Command(bin, "-n", "-t", "1", "-M", flag, "-h", "/nonexistent", "-p", "1", "-f", path).CombinedOutput()
			want := ""
			if first := strings.SplitN(string(out), "\n", 2)[0]; !strings.Contains(first, "connection") {
				want = strings.TrimPrefix(first, "pgbench: error: ")
			}
			names, err := CheckQueryMode(mode, s)
			got := ""
			if err != nil { // the SQL keeps its newline, which shows as a blank line
				got = strings.TrimSuffix(err.Error(), "\n")
			}
			if got != want {
				t.Errorf("%d parameters, -M %s: got %.80q, want %.80q", n, flag, got, want)
			}
			if err == nil && mode == QueryPrepared && names[s.Commands[1]] != "P_0" {
				t.Errorf("prepared name %q, want P_0", names[s.Commands[1]])
			}
		}
	}
}
