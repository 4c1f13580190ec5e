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
