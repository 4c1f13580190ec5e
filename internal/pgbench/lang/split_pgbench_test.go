package lang

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// splitScript runs: its commands exercise what hides a semicolon or a
// backslash from the splitter.
const splitScript = `-- comment ; with \backslash
select ';' as a, $$ ; \x $$ as b, $q$ $$ ; $q$ as c, E'\';\\' as d, "col;" from (select 1 as "col;") s;
  /* leading ; comment */ select 1 /* ; /* nested ; */ */ + 2;
select 1 as one \; select 2 as two \gset p_
select :p_two::int + 1 as three, '::x' as e, U&'d\0061t;' as f, B'1010' as g, X'1F' as h, N'n;' as i \gset
\set x :three * 2 \
   + 1
\if :x = 7
select (1 -- parenthesised
+ 2)
;
\elif false
\else
\endif
create or replace function pg_temp.f() returns int language sql begin atomic select 1; select 2; end;
select pg_temp.f()
`

// TestSplitMatchesPgbench: pgbench -r lists every command of a script with
// its first line; the same list comes out of ParseScript.
func TestSplitMatchesPgbench(t *testing.T) {
	bin := realPgbench(t)
	dsn := pgtest.NewDatabase(t)
	out := runStdout(t, bin, filepath.Join(t.TempDir(), "split.sql"), splitScript, "-n", "-t", "1", "-r", dsn)
	s, err := ParseScript("split.sql", splitScript)
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`^\s+-?[0-9.]+\s+[0-9]+\s+(.*)$`)
	var got []string
	inReport := false
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "statement latencies") {
			inReport = true
			continue
		}
		if m := row.FindStringSubmatch(l); inReport && m != nil {
			got = append(got, m[1])
		}
	}
	var want []string
	for _, c := range s.Commands {
		want = append(want, strings.Split(c.FirstLine, "\n")[0])
		if !strings.Contains(out, "  "+c.FirstLine+"\n") { // multi-line \set texts too
			t.Errorf("pgbench -r does not show %q", c.FirstLine)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pgbench -r lists:\n%s\nParseScript:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
