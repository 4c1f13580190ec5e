package pgbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// runBoth runs the real pgbench and pgoltp pgbench with the same arguments
// (in their own databases, prepared by setup) and returns what each printed
// and its exit code.
type runOutput struct {
	stdout, stderr string
	code           int
}

func runBoth(t *testing.T, setup func(dsn string), args ...string) (theirs, ours runOutput, theirDB, ourDB string) {
	t.Helper()
	bin := pgtest.Pgbench(t)
	theirDB, ourDB = pgtest.NewDatabase(t), pgtest.NewDatabase(t)
	if setup != nil {
		setup(theirDB)
		setup(ourDB)
	}
	cmd := exec.Command(bin, append(args, theirDB)...)
	cmd.Dir = t.TempDir()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	theirs = runOutput{out.String(), errb.String(), 0}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		theirs.code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	env := Env{Stdout: &o, Stderr: &e, Getenv: func(string) string { return "" }}
	ours.code = Main(context.Background(), append(args, ourDB), env)
	ours.stdout, ours.stderr = o.String(), e.String()
	return theirs, ours, theirDB, ourDB
}

func sqlExec(t *testing.T, dsn string, sql ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range sql {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func sqlText(t *testing.T, dsn, query string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var s *string
	if err := conn.QueryRow(ctx, query).Scan(&s); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if s == nil {
		return ""
	}
	return *s
}

func writeScript(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// measuredNumber is a measured number with the spaces that pad it: a
// -r latency of 10 ms or more (a busy machine) takes one of the padding's.
var measuredNumber = regexp.MustCompile(` *[0-9]+\.[0-9]+`)

// shape is the summary with its measured numbers (latencies, tps, times)
// blanked: what must be identical between the two tools.
func shape(stdout string) string {
	_, rest, _ := strings.Cut(stdout, "\n") // the version line
	return measuredNumber.ReplaceAllString(rest, " N")
}

// TestRunBuiltinMatchesPgbench runs the built-in TPC-B over clients and
// threads with -t and wants pgbench's summary lines (numbers measured
// aside), the same processed count and the same rows written.
func TestRunBuiltinMatchesPgbench(t *testing.T) {
	initDB := func(dsn string) {
		var e bytes.Buffer
		if code := Main(context.Background(), []string{"-i", "-q", dsn}, Env{Stdout: &e, Stderr: &e, Getenv: os.Getenv}); code != 0 {
			t.Fatalf("init: %s", e.String())
		}
	}
	for _, args := range [][]string{
		{"-c", "3", "-j", "2", "-t", "15"},
		{"-n", "-c", "2", "-t", "10", "-M", "prepared", "-r", "-b", "tpcb@2", "-b", "select-only@1", "--random-seed=7"},
		{"-n", "-C", "-c", "2", "-t", "5", "-M", "extended", "-P", "1"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			theirs, ours, theirDB, ourDB := runBoth(t, initDB, args...)
			if ours.code != 0 || theirs.code != 0 {
				t.Fatalf("exit %d (pgbench %d): %s", ours.code, theirs.code, ours.stderr)
			}
			if g, w := shape(ours.stdout), shape(theirs.stdout); g != w {
				t.Errorf("summary:\n%s\nwant\n%s", g, w)
			}
			count := "select count(*)::text from pgbench_history"
			if g, w := sqlText(t, ourDB, count), sqlText(t, theirDB, count); g != w {
				t.Errorf("history rows %s, pgbench wrote %s", g, w)
			}
		})
	}
}

// TestSeededScriptMatchesPgbench runs custom scripts with --random-seed in
// both tools, each transaction writing what it computed (seeded random,
// random_zipfian, random_exponential, permute, hash, the script chosen, a
// \gset value, an \if branch and a \setshell result) into a table, and
// wants the same rows.
func TestSeededScriptMatchesPgbench(t *testing.T) {
	table := func(dsn string) {
		sqlExec(t, dsn, "create table vals (script int, client int, r bigint, z bigint, e bigint, p bigint, h bigint, g int, b text, s int, ds bigint, rs bigint)")
	}
	one := writeScript(t, "one.sql", `\set r random(1, 1000000)
\set z random_zipfian(1, 1000, 1.07)
\set e random_exponential(1, 1000, 2.5)
\set p permute(:r, 1000000)
\set h hash(:r)
SELECT :r % 7 AS g \gset
\if :g > 3
\set b 3
\elif :g > 1
\set b 2
\else
\set b 1
\endif
\setshell s echo 42
INSERT INTO vals VALUES (1, :client_id, :r, :z, :e, :p, :h, :g, :b, :s, :default_seed, :random_seed);
`)
	two := writeScript(t, "two.sql", `\set r random_gaussian(1, 100, 3.0)
BEGIN;
INSERT INTO vals (script, client, r) VALUES (2, :client_id, :r) \; SELECT 1;
END;
`)
	rows := "select string_agg(format('%s', v), E'\\n' order by v::text) from vals v"
	for _, mode := range []string{"simple", "extended", "prepared"} {
		t.Run(mode, func(t *testing.T) {
			args := []string{"-n", "--random-seed=20261126", "-c", "3", "-j", "3", "-t", "12", "-M", mode, "-f", one + "@3", "-f", two + "@2"}
			if mode != "simple" {
				args = append(args[:len(args)-4], "-f", one+"@3", "-b", "select-only@1")
				table = func(dsn string) {
					sqlExec(t, dsn, "create table vals (script int, client int, r bigint, z bigint, e bigint, p bigint, h bigint, g int, b text, s int, ds bigint, rs bigint)")
					var e bytes.Buffer
					Main(context.Background(), []string{"-i", "-q", "-I", "dtg", dsn}, Env{Stdout: &e, Stderr: &e, Getenv: os.Getenv})
				}
			}
			theirs, ours, theirDB, ourDB := runBoth(t, table, args...)
			if ours.code != 0 || theirs.code != 0 {
				t.Fatalf("exit %d (pgbench %d): %s\npgbench: %s", ours.code, theirs.code, ours.stderr, theirs.stderr)
			}
			got, want := sqlText(t, ourDB, rows), sqlText(t, theirDB, rows)
			if got != want || strings.Count(want, "\n") < 20 {
				t.Errorf("rows:\n%s\nwant\n%s", got, want)
			}
			if g, w := shape(ours.stdout), shape(theirs.stdout); g != w {
				t.Errorf("summary:\n%s\nwant\n%s", g, w)
			}
		})
	}
}

// TestFailingScriptMatchesPgbench wants pgbench's exit codes and abort
// messages for scripts that fail during the run, and for bad options.
func TestFailingScriptMatchesPgbench(t *testing.T) {
	for _, c := range []struct{ name, script string }{
		{"division", "SELECT 1;\nSELECT 1/0;\n"},
		{"undefined", "\\set x :nosuch + 1\n"},
		{"open transaction", "BEGIN;\nSELECT 1;\n"},
		{"gset rows", "SELECT 1 AS a UNION ALL SELECT 2 \\gset\n"},
		{"copy", "COPY (SELECT 1) TO STDOUT\n"},
		{"context", "DO $$ BEGIN RAISE EXCEPTION 'no' USING DETAIL = 'd', HINT = 'h'; END $$;\n"},
		// the server says why (FATAL) before it closes: that is the error
		{"terminated", "SELECT pg_terminate_backend(pg_backend_pid());\nSELECT 1;\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := writeScript(t, "fail.sql", c.script)
			theirs, ours, _, _ := runBoth(t, nil, "-n", "-c", "2", "-t", "3", "-f", f)
			if ours.code != theirs.code || theirs.code != 2 {
				t.Errorf("exit %d, pgbench %d", ours.code, theirs.code)
			}
			if g, w := sortedLines(ours.stderr), sortedLines(theirs.stderr); g != w {
				t.Errorf("stderr:\n%s\nwant\n%s", g, w)
			}
			if g, w := shape(ours.stdout), shape(theirs.stdout); g != w {
				t.Errorf("summary:\n%s\nwant\n%s", g, w)
			}
		})
	}
}

// sortedLines sorts lines that several clients print in any order.
func sortedLines(s string) string {
	lines := strings.Split(s, "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestRetriesMatchPgbench raises serialization and deadlock errors on a
// seeded draw: a retry restores the client's generator, so the same draw
// fails again and the transaction fails after --max-tries; the counts of
// failures, retries and retried transactions, per script and per command,
// must be pgbench's, and so must the -l lines' results.
func TestRetriesMatchPgbench(t *testing.T) {
	f := writeScript(t, "retry.sql", `\set r random(0, 3)
\if :r = 0
DO $$ BEGIN RAISE EXCEPTION 'ser' USING ERRCODE = '40001'; END $$;
\elif :r = 1
BEGIN;
DO $$ BEGIN RAISE EXCEPTION 'dl' USING ERRCODE = '40P01'; END $$;
END;
\endif
SELECT :r;
`)
	for _, extra := range [][]string{
		{"--max-tries=3", "--failures-detailed", "-r"},
		{"--max-tries=1", "-r", "-f", f + "@2"},
		{"--max-tries=2", "-T", "1", "--verbose-errors"},
	} {
		t.Run(strings.Join(extra, " "), func(t *testing.T) {
			args := append([]string{"-n", "-c", "2", "-j", "2", "--random-seed=3", "-f", f}, extra...)
			if extra[1] != "-T" {
				args = append(args, "-t", "20")
			}
			theirs, ours, _, _ := runBoth(t, nil, args...)
			if ours.code != 0 || theirs.code != 0 {
				t.Fatalf("exit %d (pgbench %d): %s", ours.code, theirs.code, ours.stderr)
			}
			g, w := shape(ours.stdout), shape(theirs.stdout)
			if extra[1] == "-T" { // counts depend on time: compare the lines' names
				g, w = digitless(g), digitless(w)
			}
			if g != w {
				t.Errorf("summary:\n%s\nwant\n%s", g, w)
			}
			if extra[1] != "-T" && !regexp.MustCompile(`failed transactions: [1-9]`).MatchString(w) {
				t.Errorf("no failures counted:\n%s", w)
			}
		})
	}
}

var digits = regexp.MustCompile(`[0-9]+`)

func digitless(s string) string { return digits.ReplaceAllString(s, "N") }

// TestDebugMatchesPgbench wants pgbench's --debug lines for a run (pgbench
// says "receiving" each time it polls a connection that is not ready, so
// repeated lines count once).
func TestDebugMatchesPgbench(t *testing.T) {
	f := writeScript(t, "debug.sql", "\\set a 1\nSELECT :a;\n")
	for _, mode := range []string{"simple", "prepared"} {
		theirs, ours, _, _ := runBoth(t, nil, "-n", "--debug", "-t", "2", "-M", mode, "-f", f)
		if ours.code != 0 || theirs.code != 0 {
			t.Fatalf("exit %d (pgbench %d): %s", ours.code, theirs.code, ours.stderr)
		}
		g := regexp.MustCompile(`dbName: \S+`).ReplaceAllString(ours.stderr, "dbName: D")
		w := regexp.MustCompile(`dbName: \S+`).ReplaceAllString(theirs.stderr, "dbName: D")
		if g, w = withoutRepeats(g), withoutRepeats(w); g != w || !strings.Contains(w, "receiving") {
			t.Errorf("-M %s stderr:\n%s\nwant\n%s", mode, g, w)
		}
	}
}

func withoutRepeats(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if len(out) == 0 || out[len(out)-1] != l {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestLogMatchesPgbench compares -l logs with --sampling-rate and a seed:
// which transactions of which client and script are logged comes from
// the thread's generator (one client a thread: the order is the
// client's), so the lines match but for times and latencies.
func TestLogMatchesPgbench(t *testing.T) {
	f := writeScript(t, "log.sql", "SELECT 1;\n")
	g := writeScript(t, "log2.sql", "\\set x 1\n")
	dir := t.TempDir()
	logs := func(prefix string) string {
		matches, _ := filepath.Glob(filepath.Join(dir, prefix+".*"))
		var lines []string
		for _, m := range matches {
			b, err := os.ReadFile(m)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				w := strings.Fields(l) // client tx latency script sec usec
				lines = append(lines, fmt.Sprintf("%s %s %s %s", filepath.Ext(m), w[0], w[1], w[3]))
			}
		}
		sort.Strings(lines)
		return strings.Join(lines, "\n")
	}
	args := []string{"-n", "-c", "2", "-j", "2", "-t", "40", "--random-seed=11", "-l", "--sampling-rate=0.4", "-f", f + "@1", "-f", g + "@3"}
	bin := pgtest.Pgbench(t)
	db := pgtest.NewDatabase(t)
	cmd := exec.Command(bin, append(args, "--log-prefix="+filepath.Join(dir, "theirs"), db)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pgbench: %v: %s", err, out)
	}
	var out bytes.Buffer
	if code := Main(context.Background(), append(args, "--log-prefix="+filepath.Join(dir, "ours"), db), Env{Stdout: &out, Stderr: &out, Getenv: os.Getenv}); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	// the file names end with the process id, then the thread's number
	norm := regexp.MustCompile(`^\.\d+`)
	clean := func(s string) string {
		var b []string
		for _, l := range strings.Split(s, "\n") {
			b = append(b, norm.ReplaceAllString(l, ".pid"))
		}
		return strings.Join(b, "\n")
	}
	got, want := clean(logs("ours")), clean(logs("theirs"))
	if got != want || strings.Count(want, "\n") < 10 {
		t.Errorf("log lines:\n%s\nwant\n%s", got, want)
	}
}

// TestEmptyParameterIsNotNull: a variable whose text is empty is bound as
// an empty string, not NULL, in -M extended.
func TestEmptyParameterIsNotNull(t *testing.T) {
	f := writeScript(t, "empty.sql", "SELECT '' AS blank, 'x' AS x \\gset\nINSERT INTO e VALUES (:blank, :x, :nosuch);\n")
	theirs, ours, theirDB, ourDB := runBoth(t, func(dsn string) { sqlExec(t, dsn, "create table e (a text, b text, c text)") },
		"-n", "-t", "2", "-M", "extended", "-f", f)
	if ours.code != 0 || theirs.code != 0 {
		t.Fatalf("exit %d (pgbench %d): %s", ours.code, theirs.code, ours.stderr)
	}
	q := "select string_agg(format('%L %L %L', a, b, c), ',') from e"
	if g, w := sqlText(t, ourDB, q), sqlText(t, theirDB, q); g != w || w == "" {
		t.Errorf("rows %s, want %s", g, w)
	}
}

// TestRateLimitMatchesPgbench runs -R with -L, where slots already late
// are skipped, and wants pgbench's summary lines (the counts vary with
// time: their digits are compared as placeholders) and every transaction
// accounted for under -t.
func TestRateLimitMatchesPgbench(t *testing.T) {
	f := writeScript(t, "sleepy.sql", "\\sleep 2 ms\nSELECT 1;\n")
	args := []string{"-n", "-c", "2", "-j", "2", "-t", "40", "-R", "2000", "-L", "1", "--random-seed=5", "-f", f}
	theirs, ours, _, _ := runBoth(t, nil, args...)
	if ours.code != 0 || theirs.code != 0 {
		t.Fatalf("exit %d (pgbench %d): %s", ours.code, theirs.code, ours.stderr)
	}
	if g, w := digitless(shape(ours.stdout)), digitless(shape(theirs.stdout)); g != w {
		t.Errorf("summary:\n%s\nwant\n%s", g, w)
	}
	m := regexp.MustCompile(`processed: (\d+)/80\n(?s:.*)skipped: (\d+) `).FindStringSubmatch(ours.stdout)
	if m == nil || atoiTest(m[1])+atoiTest(m[2]) != 80 || atoiTest(m[2]) == 0 {
		t.Errorf("processed and skipped do not make 80 with some skipped:\n%s", ours.stdout)
	}
}

func atoiTest(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}

// TestPipelineMatchesPgbench runs \startpipeline batches in both tools and
// wants the same rows, summary lines and, for a failing batch, the same
// abort.
func TestPipelineMatchesPgbench(t *testing.T) {
	ok := writeScript(t, "pipe.sql", `\set r random(1, 1000)
\startpipeline
INSERT INTO p VALUES (:client_id, :r);
INSERT INTO p VALUES (:client_id, :r + 1);
SELECT :r;
\endpipeline
`)
	bad := writeScript(t, "badpipe.sql", "\\startpipeline\nSELECT 1;\nSELECT 1/0;\nSELECT 2;\n\\endpipeline\n")
	table := func(dsn string) { sqlExec(t, dsn, "create table p (c int, r int)") }
	rows := "select string_agg(format('%s %s', c, r), ',' order by c, r) from p"
	for _, mode := range []string{"extended", "prepared"} {
		theirs, ours, theirDB, ourDB := runBoth(t, table, "-n", "-c", "2", "-j", "2", "-t", "10", "--random-seed=2", "-M", mode, "-f", ok)
		if ours.code != 0 || theirs.code != 0 {
			t.Fatalf("-M %s: exit %d (pgbench %d): %s", mode, ours.code, theirs.code, ours.stderr)
		}
		if g, w := sqlText(t, ourDB, rows), sqlText(t, theirDB, rows); g != w || w == "" {
			t.Errorf("-M %s rows:\n%s\nwant\n%s", mode, g, w)
		}
		theirs, ours, _, _ = runBoth(t, nil, "-n", "-t", "2", "-M", mode, "-f", bad)
		if ours.code != 2 || theirs.code != 2 || ours.stderr != theirs.stderr {
			t.Errorf("-M %s failing batch: exit %d (pgbench %d), stderr:\n%s\nwant\n%s", mode, ours.code, theirs.code, ours.stderr, theirs.stderr)
		}
	}
	theirs, ours, _, _ := runBoth(t, nil, "-n", "-t", "1", "-f", ok)
	if ours.code != theirs.code || sortedLines(ours.stderr) != sortedLines(theirs.stderr) {
		t.Errorf("-M simple: exit %d (pgbench %d), stderr:\n%s\nwant\n%s", ours.code, theirs.code, ours.stderr, theirs.stderr)
	}
}

// TestRetryKeepsVariables: pgbench 15 restores a retried transaction's
// random generator but not its variables, so a counter \set in a failed
// try stays incremented; the rows written tell which tries succeeded.
func TestRetryKeepsVariables(t *testing.T) {
	f := writeScript(t, "count.sql", `\set n :n + 1
\if :n % 2 = 1
DO $$ BEGIN RAISE EXCEPTION 'odd' USING ERRCODE = '40001'; END $$;
\endif
INSERT INTO n VALUES (:n);
`)
	table := func(dsn string) { sqlExec(t, dsn, "create table n (n int)") }
	theirs, ours, theirDB, ourDB := runBoth(t, table, "-n", "-t", "4", "-D", "n=0", "--max-tries=2", "-f", f)
	if ours.code != 0 || theirs.code != 0 {
		t.Fatalf("exit %d (pgbench %d): %s", ours.code, theirs.code, ours.stderr)
	}
	q := "select string_agg(n::text, ',' order by n) from n"
	if g, w := sqlText(t, ourDB, q), sqlText(t, theirDB, q); g != w || w == "" {
		t.Errorf("rows %s, want %s", g, w)
	}
}

// TestInterruptedRunPrintsNothingMore: a run whose context ends (SIGINT)
// stops at once like pgbench killed by the signal: no client errors, no
// summary, the shell's code 130.
func TestInterruptedRunPrintsNothingMore(t *testing.T) {
	f := writeScript(t, "slow.sql", "SELECT pg_sleep(0.05);\n")
	db := pgtest.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	var out, errb bytes.Buffer
	t0 := time.Now()
	code := Main(ctx, []string{"-n", "-c", "3", "-T", "20", "-f", f, db}, Env{Stdout: &out, Stderr: &errb, Getenv: os.Getenv})
	if code != 130 || strings.Count(out.String(), "\n") != 1 || errb.String() != "" || time.Since(t0) > 10*time.Second {
		t.Errorf("exit %d after %v, stdout %q, stderr %q", code, time.Since(t0), out.String(), errb.String())
	}
}
