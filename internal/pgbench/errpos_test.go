package pgbench

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestQueryErrorTextMatchesLibpq: a failing query's message, with libpq's
// LINE and caret lines (a short line, a long line cut on the right, one cut
// on both sides, a second line), is what psql (libpq) prints for it.
func TestQueryErrorTextMatchesLibpq(t *testing.T) {
	psql := filepath.Join(filepath.Dir(pgtest.Pgbench(t)), "psql")
	conn, dsn := pgtest.Conn(t)
	long := strings.Repeat("x", 60) // under NAMEDATALEN: no truncation notice
	for _, sql := range []string{
		"select count(*) from no_such_table",
		"select 1 from no_such_table where " + long + " = 1",
		"select " + long + ", 1 from no_such_table where b = 1",
		"select 1\nfrom no_such_table",
	} {
		_, err := conn.Exec(context.Background(), sql)
		if err == nil {
			t.Fatalf("%s did not fail", sql)
		}
		out, _ := exec.Command(psql, "-X", "-q", "-d", dsn, "-c", sql).CombinedOutput()
		want := strings.TrimSpace(strings.TrimPrefix(string(out), "psql:"))
		if got := queryErrorText(err, sql); got != want {
			t.Errorf("%q:\n got %s\nwant %s", sql, got, want)
		}
	}
}
