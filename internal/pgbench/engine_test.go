package pgbench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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

var measuredNumber = regexp.MustCompile(`[0-9]+\.[0-9]+`)

// shape is the summary with its measured numbers (latencies, tps, times)
// blanked: what must be identical between the two tools.
func shape(stdout string) string {
	_, rest, _ := strings.Cut(stdout, "\n") // the version line
	return measuredNumber.ReplaceAllString(rest, "N")
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
