package lang

import (
	"reflect"
	"strings"
	"testing"
)

// TestParseScriptSplitsAsPgbench: SQL splitting, compound queries, \gset
// merging, continuation lines, sleep units and conditional jumps.
func TestParseScriptSplitsAsPgbench(t *testing.T) {
	src := "-- leading comment\n" +
		"select ';', $$ ; \\x $$, E'\\';', \"a;b\" /* ; /* nested ; */ */ from t;\n" +
		"select 1 \\; select 2 \\gset p_\n" +
		"\\set x 1 + \\\n  2\n" +
		"\\sleep 10ms\n" +
		"\\if :x > 2\n" +
		"select :x, :'x', ::int, :x::text\n;\n" +
		"\\elif false\n" +
		"\\else\n" +
		"\\endif\n" +
		"create function f() returns int begin atomic select 1; end;\n" +
		"select (1;\n2)"
	s, err := ParseScript("t.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range s.Commands {
		if c.IsSQL() {
			got = append(got, "SQL "+c.SQL)
		} else {
			got = append(got, "META "+strings.Join(c.Argv, "|"))
		}
	}
	want := []string{
		`SQL select ';', $$ ; \x $$, E'\';', "a;b" /* ; /* nested ; */ */ from t;`,
		"SQL select 1 ; select 2 ",
		"META set|x", "META sleep|10ms|ms", "META if",
		"SQL select :x, :'x', ::int, :x::text\n;",
		"META elif", "META else", "META endif",
		"SQL create function f() returns int begin atomic select 1; end;",
		"SQL select (1;\n2)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("commands:\n%q\nwant\n%q", got, want)
	}
	c := s.Commands
	if c[1].ResultSet != MetaGset || c[1].Prefix != "p_" || c[1].Compound != 2 {
		t.Errorf("gset: %+v", c[1])
	}
	if c[2].Expr.String() != "(1 + 2)" || c[2].FirstLine != "\\set x 1 + \\\n  2" {
		t.Errorf("set: %q %q", c[2].Expr, c[2].FirstLine)
	}
	if c[4].Jump != 6 || c[6].Jump != 7 || c[7].Jump != 8 || c[4].Endif != 8 || c[6].Endif != 8 {
		t.Errorf("jumps: if %d elif %d else %d endif %d/%d", c[4].Jump, c[6].Jump, c[7].Jump, c[4].Endif, c[6].Endif)
	}
	if c[5].ParamSQL != "select $1, :'x', ::int, $2::text\n;" || !reflect.DeepEqual(c[5].Params, []string{"x", "x"}) {
		t.Errorf("params: %q %q", c[5].ParamSQL, c[5].Params)
	}
	if c[5].FirstLine != "select :x, :'x', ::int, :x::text" {
		t.Errorf("first line %q", c[5].FirstLine)
	}
	if got := Substitute(c[5].SQL, func(n string) (string, bool) { return "42", n == "x" }); got != "select 42, :'x', ::int, 42::text\n;" {
		t.Errorf("substitute: %q", got)
	}
}
