package e2e_test

import (
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestPgbenchCommandIsPgbenchs: `pgoltp pgbench` hands its whole command
// line to pgbench's parser but for the options pgoltp adds, which pgbench
// has none of (--record, --title, --metrics-addr, --lab, --results-dsn):
// other pgoltp flags (--json, -v) mean nothing or pgbench's, --help is pgbench's, bad options exit 1 (pgbench's code, not
// pgoltp's 2), -i initialises a database, and a run runs.
func TestPgbenchCommandIsPgbenchs(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"pgbench", "--help"}, 0, "pgbench is a benchmarking tool for PostgreSQL.", ""},
		{[]string{"pgbench", "-V"}, 0, "pgbench (PostgreSQL) ", ""},
		{[]string{"pgbench", "--json"}, 1, "", "pgbench: unrecognized option '--json'"},
		{[]string{"pgbench", "-i", "-v"}, 1, "", "pgbench: error: some of the specified options cannot be used in initialization (-i) mode"},
		{[]string{"pgbench", "-c8x"}, 1, "", `pgbench: error: invalid value "8x" for option -c/--clients`},
		{[]string{"pgbench", "-i", "-q", "-I", "dtGp", dsn}, 0, "", "done in "},
		{[]string{"pgbench", "-n", "-S", "-c", "2", "-t", "5", dsn}, 0, "pgbench (", ""},
	} {
		r := runPgoltp(t, time.Minute, tc.args...)
		if r.code != tc.code || !strings.HasPrefix(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.stderr) || tc.stdout == "" && r.stdout != "" ||
			tc.args[1] == "-n" && !strings.Contains(r.stdout, "processed: 10/10") {
			t.Errorf("pgoltp %s: exit %d, stdout %q, stderr %q; want exit %d, stdout starting %q, stderr with %q",
				strings.Join(tc.args[:min(len(tc.args), 4)], " "), r.code, r.stdout, r.stderr, tc.code, tc.stdout, tc.stderr)
		}
	}
}

// TestPgbenchConnectsToTheLab: with no server named in PG* variables,
// `pgoltp pgbench` connects to the server pgoltp was given (--dsn here,
// --lab or a lab in the default place likewise), so a lab needs no
// connection options; its command line overrides parts as libpq's does.
func TestPgbenchConnectsToTheLab(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	if r := runPgoltp(t, time.Minute, "pgbench", "--dsn", dsn, "-i", "-q", "-I", "dtGp"); r.code != 0 || !strings.Contains(r.stderr, "done in ") {
		t.Fatalf("pgbench -i through --dsn: exit %d, stderr %q", r.code, r.stderr)
	}
	r := runPgoltp(t, time.Minute, "pgbench", "--dsn", dsn, "-n", "-S", "-t", "5")
	if r.code != 0 || !strings.Contains(r.stdout, "processed: 5/5") {
		t.Errorf("pgbench -S through --dsn: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// A database named on the command line wins over the server's default,
	// as a dbname wins over PGDATABASE in pgbench.
	r = runPgoltp(t, time.Minute, "pgbench", "--dsn", dsn, "-n", "-S", "-t", "5", "no_such_database_here")
	if r.code != 1 || !strings.Contains(r.stderr, `database "no_such_database_here" does not exist`) {
		t.Errorf("pgbench with its own dbname: exit %d, stderr %q; want the server's refusal of that database", r.code, r.stderr)
	}
}
