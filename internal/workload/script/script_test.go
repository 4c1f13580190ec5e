package script_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/script"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// Zipfian is a custom script with \set random_zipfian, \gset and \if, the
// case of issue 27's benchmarks.
const Zipfian = `\set aid random_zipfian(1, 100000 * :scale, 1.1)
SELECT abalance AS bal FROM pgbench_accounts WHERE aid = :aid \gset
\if :bal >= 0
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;
\else
SELECT 1;
\endif
`

func writeScript(t *testing.T, name, text string) string {
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// newLoadedDatabase is a database with pgbench's tables at scale 1.
func newLoadedDatabase(t *testing.T) string {
	dsn := pgtest.NewDatabase(t)
	if err := script.New(script.Options{}).Prepare(context.Background(), dsn, nil); err != nil {
		t.Fatal(err)
	}
	return dsn
}

// TestScriptRunsACustomScript: Prepare is pgbench -i, Run measures the
// script through pgoltp pgbench's engine: a series, a histogram per script,
// per-statement latencies.
func TestScriptRunsACustomScript(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	path := writeScript(t, "zipf.sql", Zipfian)
	w := script.New(script.Options{Files: []string{path + "@3"}, Builtins: []string{"select-only@1"}, Defines: []string{"hot=10"},
		Clients: 2, Protocol: "prepared"})
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := w.Prepare(ctx, dsn, workload.Layout{"fillfactor": "90"}); err != nil {
		t.Fatal(err)
	}
	var intervals int
	res, err := w.Run(ctx, dsn, workload.RunOptions{Duration: 2 * time.Second, OnInterval: func(s *metrics.Snapshot, _ string) { intervals++ }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Transactions == 0 || res.P99 <= 0 || len(res.PerSecond) == 0 || intervals == 0 || res.Series == nil {
		t.Fatalf("measured nothing: %d txns, p99 %v, %d seconds, %d intervals", res.Transactions, res.P99, len(res.PerSecond), intervals)
	}
	if len(res.Latency) != 2 {
		t.Errorf("latency per script: %v, want the file's and select-only's", keys(res.Latency))
	}
	var statements []string
	for _, f := range res.Headline {
		if strings.HasPrefix(f.Name, workload.StatementFigure) {
			statements = append(statements, f.Name)
		}
	}
	joined := strings.Join(statements, "\n")
	for _, want := range []string{"random_zipfian", "SELECT abalance AS bal", "\\if :bal >= 0", "UPDATE pgbench_accounts", "builtin: select only"} {
		if !strings.Contains(joined, want) {
			t.Errorf("per-statement figures lack %q:\n%s", want, joined)
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestScriptErrorsNameTheScript: a script that cannot be read or parsed is
// one line naming the option, the file, the line and the column.
func TestScriptErrorsNameTheScript(t *testing.T) {
	bad := writeScript(t, "bad.sql", "SELECT 1;\n\\set x 1 +* 2\n")
	for _, c := range []struct {
		o    script.Options
		want []string
	}{
		{script.Options{Files: []string{bad}}, []string{"files " + bad, "bad.sql:2:", "syntax error"}},
		{script.Options{Files: []string{"/nonexistent/x.sql"}}, []string{"files /nonexistent/x.sql", "could not open file"}},
		{script.Options{Builtins: []string{"nosuch"}}, []string{"builtins nosuch", "no builtin script"}},
		{script.Options{Defines: []string{"novalue"}}, []string{"defines novalue", "name=value"}},
		{script.Options{Protocol: "binary"}, []string{"protocol binary"}},
		{script.Options{Init: "maybe"}, []string{"init maybe"}},
	} {
		err := c.o.Validate()
		if err == nil {
			t.Errorf("%+v: no error", c.o)
			continue
		}
		msg := err.Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w) || strings.Contains(msg, "\n") {
				t.Errorf("%+v: %q lacks %q or is not one line", c.o, msg, w)
			}
		}
	}
}
