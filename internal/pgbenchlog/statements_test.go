package pgbenchlog_test

import (
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgbenchlog"
)

// TestParseOutputStatements: -r's per-statement blocks, with and without
// retries, one script and several, are read with their script.
func TestParseOutputStatements(t *testing.T) {
	single := `transaction type: my.sql
tps = 10.0 (without initial connection time)
statement latencies in milliseconds and failures:
         0.002           0  \set aid random(1, 100000 * :scale)
         1.250           3  SELECT  abalance FROM pgbench_accounts WHERE aid = :aid;
`
	out := pgbenchlog.ParseOutput(strings.NewReader(single))
	want := []pgbenchlog.Statement{{Script: 0, Command: `\set aid random(1, 100000 * :scale)`, MeanMs: 0.002},
		{Script: 0, Command: "SELECT  abalance FROM pgbench_accounts WHERE aid = :aid;", MeanMs: 1.25, Failures: 3}}
	if len(out.Statements) != 2 || out.Statements[0] != want[0] || out.Statements[1] != want[1] {
		t.Errorf("single script: %+v", out.Statements)
	}
	several := `SQL script 1: a.sql
 - weight: 1 (targets 50.0% of total)
 - statement latencies in milliseconds, failures and retries:
         0.500           1           7  SELECT 1;
SQL script 2: <builtin: select only>
 - weight: 1 (targets 50.0% of total)
 - statement latencies in milliseconds, failures and retries:
         0.100           0           0  \set aid random(1, 100000 * :scale)
`
	out = pgbenchlog.ParseOutput(strings.NewReader(several))
	if len(out.Statements) != 2 || out.Statements[0] != (pgbenchlog.Statement{Script: 0, Command: "SELECT 1;", MeanMs: 0.5, Failures: 1, Retries: 7}) ||
		out.Statements[1].Script != 1 || out.Statements[1].Command != `\set aid random(1, 100000 * :scale)` {
		t.Errorf("several scripts: %+v", out.Statements)
	}
}
