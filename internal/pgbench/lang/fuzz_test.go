package lang

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// seedScripts are fuzz seeds in the style of pgbench's TAP tests (its
// expression script, error cases, pipelines and conditionals).
var seedScripts = []string{
	"\\set i1 debug(random(10, 19))\n\\set i9 debug(- (3 * 4 - (-(~ 1) + -(~ 0))) / -1 + 3 % -1)\n",
	"\\set ic debug(64 % (((2 + 1 * 2 + (1 # 2) | 4 * (2 & 11)) - (1 << 2)) + 2))\n",
	"\\set d1 debug(sqrt(+1.5 * 2.0) * abs(-0.8E1))\n\\set d5 debug(least(-5.18, .0E0, 1.0/0) * -3.3)\n",
	"\\set c8 debug(CASE \\\n WHEN (1.0 > 0.0) AND (0.0 <> 1.0) \\\n THEN 36 \\\n ELSE 0 \\\n END)\n",
	"\\set n4 debug(:n0 ISNULL AND NOT :n0 IS TRUE AND :n0 IS NOT FALSE)\n",
	"\\set h5 debug(hash(10) = hash(10, :default_seed))\n\\set p debug(permute(:h5, 10, 3))\n",
	"SELECT :v0, :v1, :v2, :v3;\n\\if 1 > 0\n\\set id debug(65)\n\\elif 0\n\\set nope 1\n\\else\n\\set nope 1\n\\endif\n",
	"\\startpipeline\nselect 1;\n\\syncpipeline\nselect 2;\n\\endpipeline\n",
	"select 1 as one \\; select 2 as two \\gset p_\nselect 3 \\aset\n",
	"\\sleep 10ms\n\\sleep :t us\n\\setshell x echo 1\n\\shell true\n",
	"-- SQL syntax error\n    SELECT 1 + ;\n", "\\set i 1 +", "\\set i noSuchFunction()", "\\set i ;",
	"\\set i least(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16)", "\\set i random(:minint, :maxint)",
	"\\set i random_zipfian(0, 10, 1000000)", "\\set i -9223372036854775808 / -1", "\\set i 9223372036854775808",
	"\\if true\n\\elif false\n\\else\n\\elif\n\\endif\n", "\\else\n", "\\sleep 0.5\n", "\\sleep 1 2 3\n",
	"create function f() returns int begin atomic select 1; end;\nselect $x$ ; $x$, E'\\';', \"a;\"\n",
	"\\gset\n", "select 1;\n\\gset\n\\gset\n", "",
}

// tapSnippets adds the q{...} scripts of pgbench's own TAP tests when
// PGBENCH_TAP_DIR names their directory (src/bin/pgbench/t).
func tapSnippets(t testing.TB) []string {
	dir := os.Getenv("PGBENCH_TAP_DIR")
	if dir == "" {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.pl"))
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, quotedBlocks(string(b))...)
		out = append(out, fileContents(string(b))...)
	}
	return out
}

// perlFile matches 002_pgbench_no_server.pl's { 'name.sql' => 'script' }.
var perlFile = regexp.MustCompile(`\.sql' => ('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")`)

// fileContents returns those scripts, unquoted as Perl does.
func fileContents(s string) []string {
	var out []string
	for _, m := range perlFile.FindAllStringSubmatch(s, -1) {
		q, body := m[1][0], m[1][1:len(m[1])-1]
		var b strings.Builder
		for i := 0; i < len(body); i++ {
			c := body[i]
			if c == '\\' && i+1 < len(body) {
				n := body[i+1]
				switch {
				case n == '\\' || n == q:
					c, i = n, i+1
				case q == '"' && n == 'n':
					c, i = '\n', i+1
				case q == '"' && n == 't':
					c, i = '\t', i+1
				}
			}
			b.WriteByte(c)
		}
		out = append(out, b.String())
	}
	return out
}

// quotedBlocks returns the bodies of Perl q{...} quotes (braces balanced).
func quotedBlocks(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "q{")
		if i < 0 {
			return out
		}
		depth, j := 1, i+2
		for ; j < len(s) && depth > 0; j++ {
			switch s[j] {
			case '{':
				depth++
			case '}':
				depth--
			}
		}
		out = append(out, s[i+2:j-1])
		s = s[j:]
	}
}

// FuzzParseScript: the parser never panics; a parsed script has sane jump
// targets, expressions that print and parse back, and parses the same way
// twice; an error always says something.
func FuzzParseScript(f *testing.F) {
	for _, s := range append(seedScripts, tapSnippets(f)...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := ParseScript("f.sql", src)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		again, _ := ParseScript("f.sql", src)
		if len(again.Commands) != len(s.Commands) {
			t.Fatal("two parses differ")
		}
		for i, c := range s.Commands {
			checkCommand(t, s, i, c)
		}
	})
}

func checkCommand(t *testing.T, s *Script, i int, c *Command) {
	switch c.Meta {
	case MetaNone:
		if strings.TrimSpace(c.SQL) == "" || len(c.ParamSQL) == 0 {
			t.Fatalf("command %d: empty SQL", i)
		}
	case MetaIf, MetaElif, MetaElse:
		j := c.Jump
		if j <= i || j >= len(s.Commands) || c.Endif < j || s.Commands[c.Endif].Meta != MetaEndif {
			t.Fatalf("command %d jumps to %d (endif %d)", i, j, c.Endif)
		}
		if m := s.Commands[j].Meta; m != MetaElif && m != MetaElse && m != MetaEndif {
			t.Fatalf("command %d jumps to a %v", i, m)
		}
	}
	if c.Expr != nil {
		roundTrip(t, c.Expr)
	}
}

// roundTrip: printing an expression and parsing it back gives the same
// expression, which evaluates the same way.
func roundTrip(t *testing.T, e *Expr) {
	text := e.String()
	back, err := ParseExpr(text)
	if err != nil {
		t.Fatalf("%s does not parse back: %v", text, err)
	}
	if back.String() != text {
		t.Fatalf("%s parses back as %s", text, back)
	}
	a, b := newClients(5, 1, nil)[0], newClients(5, 1, nil)[0]
	va, ea := Eval(e, a)
	vb, eb := Eval(back, b)
	if va.String() != vb.String() || va.Kind != vb.Kind || (ea == nil) != (eb == nil) ||
		ea != nil && ea.Error() != eb.Error() || strings.Join(a.debug, "\n") != strings.Join(b.debug, "\n") {
		t.Fatalf("%s: %v %v, parsed back: %v %v", text, va, ea, vb, eb)
	}
}

// FuzzParseExpr: any input either parses, printing and evaluating as its
// reparsed self, or fails with a located syntax error.
func FuzzParseExpr(f *testing.F) {
	for _, s := range seedScripts {
		for _, l := range strings.Split(s, "\n") {
			if _, rest, ok := strings.Cut(l, "\\set "); ok {
				if _, expr, ok := strings.Cut(rest, " "); ok {
					f.Add(expr)
				}
			}
		}
	}
	for _, e := range valueExprs {
		f.Add(e)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := ParseExpr(src)
		if err != nil {
			se, ok := err.(*SyntaxError)
			if !ok || se.Column < -1 || se.Column > len(src) {
				t.Fatalf("%q: %v", src, err)
			}
			return
		}
		roundTrip(t, e)
	})
}
