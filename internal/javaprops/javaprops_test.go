package javaprops

import (
	"strings"
	"testing"
)

// The cases are the ones java.util.Properties.load documents.
func TestParse(t *testing.T) {
	src := "# comment\n" +
		"  ! another\n" +
		"\n" +
		"db=postgres\n" +
		"conn = jdbc:postgresql://localhost:5432/tpcc\n" +
		"user:benchmarksql\n" +
		"warehouses 10\n" +
		"fruits   apple, banana, \\\n" +
		"         cherry\n" +
		"key\\ with\\ blanks=v\\u00e9\\tx\n" +
		"empty\n" +
		"path=C:\\\\dir\n" +
		"//To run for specified minutes- runTxnsPerTerminal must equal zero\n" +
		"db=oracle\n"
	props, err := Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Property{
		{"db", "postgres", 4},
		{"conn", "jdbc:postgresql://localhost:5432/tpcc", 5},
		{"user", "benchmarksql", 6},
		{"warehouses", "10", 7},
		{"fruits", "apple, banana, cherry", 8},
		{"key with blanks", "v\u00e9\tx", 10},
		{"empty", "", 11},
		{"path", `C:\dir`, 12},
		{"//To", "run for specified minutes- runTxnsPerTerminal must equal zero", 13},
		{"db", "oracle", 14},
	}
	if len(props) != len(want) {
		t.Fatalf("got %d properties %+v, want %d", len(props), props, len(want))
	}
	for i := range want {
		if props[i] != want[i] {
			t.Errorf("property %d = %+v, want %+v", i, props[i], want[i])
		}
	}
	if p, _ := Last(props, "db"); p.Value != "oracle" {
		t.Errorf("Last(db) = %q, want the later value", p.Value)
	}
	if _, err := Parse(strings.NewReader("k=\\u12\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a malformed escape gave %v, want an error naming line 1", err)
	}
}

// FuzzParse: any input parses or fails with one line, and what parses has
// keys and values that re-parse to themselves when written back escaped.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a=b", "a b\\\n c", "# x\n!y\nk:v", "k=\\u00e9", "\\=\\:=x", "k=v\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		props, err := Parse(strings.NewReader(s))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("the error is not one line: %q", err)
			}
			return
		}
		for _, p := range props {
			line := escape(p.Key, true) + "=" + escape(p.Value, false)
			back, err := Parse(strings.NewReader(line))
			if err != nil || len(back) != 1 || back[0].Key != p.Key || back[0].Value != p.Value {
				t.Fatalf("%q → %+v did not re-parse from %q: %+v %v", s, p, line, back, err)
			}
		}
	})
}

// escape writes s so that Parse reads it back (as Properties.store does).
func escape(s string, key bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		r := s[i]
		switch {
		case r == '\\' || r == '=' || r == ':' || r == '#' || r == '!':
			b.WriteString(`\` + string(r))
		case r == ' ' && (key || i == 0):
			b.WriteString(`\ `)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\f':
			b.WriteString(`\f`)
		default:
			b.WriteByte(r)
		}
	}
	return b.String()
}
