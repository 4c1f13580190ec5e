package lang

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// exprGen writes random expressions of pgbench's language: every operator,
// keyword and function, mixed types, so precedence and coercions are tried.
type exprGen struct{ r *rand.Rand }

var (
	genBinary = []string{"+", "-", "*", "/", "%", "<", ">", "<=", ">=", "=", "<>", "!=", "&", "|", "#", "<<", ">>", "and", "or", "AND", "Or"}
	genLeaf   = []string{"0", "1", "2", "7", "-3", "9223372036854775807", "-9223372036854775808", "4611686018427387904",
		"1.5", ".25", "2e3", "0.0", "true", "false", "null", ":a", ":b", ":c", ":d", "pi()", "random(1, 9)"}
	genFunc = []string{"abs(%s + 0)", "int(%s)", "double(%s)", "sqrt(%s)", "ln(%s)", "exp(%s)", "debug(%s)", "hash(%s)",
		"hash_fnv1a(%s, %s)", "least(%s, %s, %s)", "greatest(%s, %s)", "pow(%s, %s)", "mod(%s, %s)", "permute(%s, %s)",
		"random(%s, %s)", "random_zipfian(1, %s, 1.5)", "random_exponential(1, %s, %s)", "random_gaussian(%s, 100, 3)"}
)

func (g exprGen) expr(depth int) string {
	if depth <= 0 || g.r.IntN(4) == 0 {
		return genLeaf[g.r.IntN(len(genLeaf))]
	}
	switch g.r.IntN(9) {
	case 0, 1, 2, 3:
		return g.expr(depth-1) + " " + genBinary[g.r.IntN(len(genBinary))] + " " + g.expr(depth-1)
	case 4:
		return []string{"-", "+", "~", "not ", "NOT "}[g.r.IntN(5)] + g.expr(depth-1)
	case 5:
		return "(" + g.expr(depth-1) + ")"
	case 6:
		return g.expr(depth-1) + []string{" is null", " IS NOT NULL", " isnull", " notnull", " is true", " is not false"}[g.r.IntN(6)]
	case 7:
		f := genFunc[g.r.IntN(len(genFunc))]
		args := make([]any, strings.Count(f, "%s"))
		for i := range args {
			args[i] = g.expr(depth - 1)
		}
		return fmt.Sprintf(f, args...)
	}
	return "case when " + g.expr(depth-1) + " then " + g.expr(depth-1) + " else " + g.expr(depth-1) + " end"
}

var genDefines = map[string]string{"a": "5", "b": "-2.5", "c": "true", "d": "null"}

// TestRandomExpressionsMatchPgbench: hundreds of generated expressions give
// pgbench's parse errors, values and evaluation errors.
func TestRandomExpressionsMatchPgbench(t *testing.T) {
	bin := realPgbench(t)
	dsn := pgtest.NewDatabase(t)
	// PGBENCH_GEN_SCALE=n compares n times as many expressions.
	scale, _ := strconv.Atoi(os.Getenv("PGBENCH_GEN_SCALE"))
	scale = max(scale, 1)
	g := exprGen{rand.New(rand.NewPCG(uint64(scale), 2))}
	var good, failing []string
	parseChecked := 0
	path := filepath.Join(t.TempDir(), "gen.sql")
	c := newClients(1, 1, genDefines)[0]
	for i := 0; i < 600*scale; i++ {
		src := "debug(" + g.expr(4) + ")"
		e, err := ParseExpr(src)
		if err != nil {
			if parseChecked < 60*scale { // compare the texts, offline
				parseChecked++
				comparePgbenchParse(t, bin, path, src)
			}
			continue
		}
		// a failing expression leaves the generator as it found it
		saved, printed := *c.rng, len(c.debug)
		c.command = len(good) + 1
		if _, err := Eval(e, c); err != nil {
			*c.rng, c.debug = saved, c.debug[:printed]
			failing = append(failing, src)
			continue
		}
		good = append(good, src)
	}
	args := []string{"-n", "-t", "1", "--random-seed=1", dsn}
	for k, v := range genDefines {
		args = append(args, "-D", k+"="+v)
	}
	lines := make([]string, len(good))
	for i, src := range good {
		lines[i] = `\set v ` + src
	}
	stderr, code := runPgbench(t, bin, strings.Join(lines, "\n")+"\n", args...)
	if got := debugLines(stderr); code != 0 || strings.Join(got, "\n") != strings.Join(c.debug, "\n") {
		t.Errorf("values differ (pgbench exited %d); first difference: %s", code, firstDiff(got, c.debug, good))
	}
	failing = failing[:min(len(failing), 40*scale)]
	for _, src := range failing {
		stderr, _ := runPgbench(t, bin, `\set v `+src+"\n", args...)
		want := debugAndErrors(stderr)
		e, _ := ParseExpr(src)
		fresh := newClients(1, 1, genDefines)[0]
		fresh.command = 1
		got := fresh.debug
		if _, err := Eval(e, fresh); err != nil {
			got = append(fresh.debug, err.Error())
		} else {
			got = fresh.debug
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %s\nwant %s", src, got, want)
		}
	}
	t.Logf("%d values, %d run-time errors, %d parse errors compared", len(good), len(failing), parseChecked)
}

func comparePgbenchParse(t *testing.T, bin, path, src string) {
	t.Helper()
	out, _ := pgbenchParse(t, bin, path, `\set x `+src+"\n")
	_, err := ParseScript(path, `\set x `+src+"\n")
	if want := strings.TrimSuffix(strings.TrimPrefix(out, "pgbench: error: "), "\n"); err == nil || err.Error() != want {
		t.Errorf("%s:\n got %v\nwant %s", src, err, want)
	}
}

// firstDiff describes where two lists of debug lines part.
func firstDiff(got, want, exprs []string) string {
	for i := 0; i < len(got) && i < len(want); i++ {
		if got[i] != want[i] {
			return fmt.Sprintf("line %d: pgbench %s, here %s (expressions: %d)", i, got[i], want[i], len(exprs))
		}
	}
	return fmt.Sprintf("pgbench printed %d lines, here %d", len(got), len(want))
}

// debugAndErrors are pgbench's debug lines and its error messages (without
// the client's "aborted" line), in order.
func debugAndErrors(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		switch {
		case strings.HasPrefix(l, "debug("):
			out = append(out, l)
		case strings.HasPrefix(l, "pgbench: error: ") && !strings.Contains(l, "aborted"):
			out = append(out, strings.TrimPrefix(l, "pgbench: error: "))
		}
	}
	return out
}

// soupTokens are pieces of the expression language, right and wrong.
var soupTokens = []string{"(", ")", ",", "+", "-", "*", "/", "%", "<", ">", "<=", ">=", "=", "<>", "!=", "&", "|", "#",
	"~", "<<", ">>", "and", "or", "not", "is", "isnull", "notnull", "null", "true", "false", "case", "when", "then",
	"else", "end", "1", "2.5", ".5", "9223372036854775808", "99999999999999999999", "1e999", ":x", "abs", "least",
	"hash", "permute", "random", "pi", "nosuch", "@", "!", ":", "\\\n", "'", "$", "\\"}

// TestTokenSoupParseErrorsMatchPgbench: random token sequences parse, or
// fail with the same message, line and column, as in pgbench.
func TestTokenSoupParseErrorsMatchPgbench(t *testing.T) {
	bin := offlinePgbench(t)
	path := filepath.Join(t.TempDir(), "soup.sql")
	scale, _ := strconv.Atoi(os.Getenv("PGBENCH_GEN_SCALE"))
	r := rand.New(rand.NewPCG(uint64(max(scale, 1)), 9))
	for i := 0; i < 100*max(scale, 1); i++ {
		var b strings.Builder
		for n := 1 + r.IntN(8); n > 0; n-- {
			b.WriteString(soupTokens[r.IntN(len(soupTokens))])
			b.WriteString([]string{" ", "", "  "}[r.IntN(3)])
		}
		cmd := []string{`\set x `, `\if `, `\elif `}[r.IntN(3)]
		src := cmd + b.String() + "\n" + []string{"", "select 1;\n", "\\endif\n"}[r.IntN(3)]
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

// sqlSoup are pieces of SQL that hide, or do not hide, what follows them.
var sqlSoup = []string{"select", " ", "\n", "'", "''", "\"", "$$", "$a$", "$1", "a$b$", "--", "/*", "*/", "(", ")", ";",
	"\\;", "E'", "e'\\'", "U&'", "x'", "\\\\", "\\bad", "\\set y 1\n", "begin", "end", "create function", "atomic", ":'v'", "::",
	"b'", "U&\"", "n'", "X'", "\"\"", "'\\'", "/*/*", "e'''", "1.5e+", "..", "$$x", "$_a$", "$\u00e9$", "\u00e9", "\t", "case", "procedure", "or replace"}

// TestSQLSoupSplitsAsPgbench: random SQL followed by a bad meta-command
// fails in pgbench exactly when the backslash is outside quotes and
// comments here, with the same text and line.
func TestSQLSoupSplitsAsPgbench(t *testing.T) {
	bin := offlinePgbench(t)
	path := filepath.Join(t.TempDir(), "sql.sql")
	scale, _ := strconv.Atoi(os.Getenv("PGBENCH_GEN_SCALE"))
	r := rand.New(rand.NewPCG(uint64(max(scale, 1)), 11))
	for i := 0; i < 100*max(scale, 1); i++ {
		var b strings.Builder
		for n := 1 + r.IntN(10); n > 0; n-- {
			b.WriteString(sqlSoup[r.IntN(len(sqlSoup))])
		}
		src := b.String() + []string{"\n\\bad\n", "\\gset\n", "", ";\n\\endif\n"}[r.IntN(4)]
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
