package lang

import (
	"context"

	"github.com/jackc/pgx/v5/pgconn"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestResultSetsMatchPgbench: \gset and \aset store what pgbench stores
// (prefixes, compound queries, NULLs, empty results) and fail as it fails.
func TestResultSetsMatchPgbench(t *testing.T) {
	bin := realPgbench(t)
	conn, dsn := pgtest.Conn(t)
	for _, sql := range []string{
		`select 1 as a, 'x' as b \gset`,
		`select 1 as a \; select 2 as b, 3 as c \gset p_`,
		`select 1 as a \; select 2 as a \aset`,
		`select 1 as a where false \; select 5 as a from generate_series(1, 3) \aset q_`,
		`select 1 as a from generate_series(1, 2) \gset`,
		`select 1 as a where false \gset`,
		`select 1 as "a b" \gset`,
		`select null::int as a, 7 as n \gset`,
		`select 2 as n \; set application_name = 'x' \gset`,
	} {
		script := "\\set n 0\n\\set a 0\n" + sql + "\n" + `\set out debug(:n * 1000 + :a)` + "\n"
		stderr, _ := runPgbench(t, bin, script, "-n", "-t", "1", dsn)
		want := pgbenchOutcome(stderr)
		s, err := ParseScript("rs.sql", script)
		if err != nil {
			t.Fatal(err)
		}
		if got := storeOutcome(t, conn.PgConn(), s); got != want {
			t.Errorf("%s:\n got %s\nwant %s", sql, got, want)
		}
	}
}

// pgbenchOutcome is the debug line, or the error lines, pgbench printed.
func pgbenchOutcome(stderr string) string {
	if d := debugLines(stderr); len(d) == 1 {
		return d[0]
	}
	var errs []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "pgbench: error: ") && !strings.Contains(l, "aborted") {
			errs = append(errs, l)
		}
	}
	return strings.TrimPrefix(strings.Join(errs, "\n"), "pgbench: error: ")
}

// storeOutcome runs the script's SQL command as pgbench -M simple sends it,
// stores its results with StoreResult and evaluates the \set after it.
func storeOutcome(t *testing.T, conn *pgconn.PgConn, s *Script) string {
	c := newClients(1, 1, nil)[0]
	vars := NewVars()
	_ = vars.Set("set", "n", IntValue(0))
	_ = vars.Set("set", "a", IntValue(0))
	sql := s.Commands[2]
	results, err := conn.Exec(context.Background(), sql.SQL).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range results {
		qr := QueryResult{HasTuples: r.FieldDescriptions != nil, Rows: len(r.Rows)}
		for _, f := range r.FieldDescriptions {
			qr.Columns = append(qr.Columns, f.Name)
		}
		if len(r.Rows) > 0 {
			for _, v := range r.Rows[len(r.Rows)-1] {
				qr.LastRow = append(qr.LastRow, v)
			}
		}
		if err := sql.StoreResult(vars, 0, 0, 2, i, i == len(results)-1, qr); err != nil {
			return err.Error()
		}
	}
	c.command = 4
	env := &varsEnv{vars: vars, client: c}
	if _, err := Eval(s.Commands[3].Expr, env); err != nil {
		return err.Error()
	}
	return c.debug[0]
}

// varsEnv evaluates with Vars, as an engine would.
type varsEnv struct {
	vars   *Vars
	client *testClient
}

func (e *varsEnv) Lookup(ref *Expr) (Value, error) { return e.vars.Lookup(ref.Var) }
func (e *varsEnv) RNG() *PRNG                      { return e.client.rng }
func (e *varsEnv) Debug(v Value)                   { e.client.Debug(v) }
