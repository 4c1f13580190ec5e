package tpcc

import (
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// FuzzParseWeights: accepted --weights are five non-negative numbers
// summing to 1..10000 cards that read back the same when written
// (weightsString, as the run's parameters store them); anything else is a
// one-line error.
func FuzzParseWeights(f *testing.F) {
	for _, s := range []string{"45,43,4,4,4", "10,10,1,1,1", "1,2", "a,1,1,1,1", "0,0,0,0,0", "-1,1,1,1,1", " 1 , 1,1,1,1",
		"9223372036854775807,1,0,0,0", "10000,0,0,0,0", "10001,0,0,0,0", "+5,0,0,0,0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWeights(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("ParseWeights(%q): the error is not one line: %q", s, err)
			}
			return
		}
		total := 0
		for _, n := range w {
			if n < 0 || n > 10000 {
				t.Fatalf("ParseWeights(%q) accepted the weight %d", s, n)
			}
			total += n
		}
		if len(w) != numDealt || total < 1 || total > 10000 {
			t.Fatalf("ParseWeights(%q) = %v: %d cards", s, w, total)
		}
		if back, err := ParseWeights(weightsString(w)); err != nil || !slices.Equal(back, w) {
			t.Fatalf("ParseWeights(%q) = %v, written %q, read back as %v, %v", s, w, weightsString(w), back, err)
		}
	})
}

// FuzzParseSchemas: accepted --schemas are distinct, non-empty, trimmed
// names that PostgreSQL keeps whole (at most 63 bytes, no NUL: longer names
// are truncated, so two could become one schema), and the form a command
// shows them in (SchemasText) reads back the same.
func FuzzParseSchemas(f *testing.F) {
	for _, s := range []string{"2", "1", "a,b", " a , b ", "bench", "0", "-3", "a,,b", "a,a", "1001", "tpcc1,tpcc2", "2,1", "x\x00y",
		strings.Repeat("s", 63) + "a," + strings.Repeat("s", 63) + "b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		names, err := ParseSchemas(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("ParseSchemas(%q): the error is not one line: %q", s, err)
			}
			return
		}
		for i, n := range names {
			if n == "" || n != strings.TrimSpace(n) || len(n) > 63 || strings.ContainsRune(n, 0) || slices.Contains(names[:i], n) {
				t.Fatalf("ParseSchemas(%q) accepted the schema %q among %q", s, n, names)
			}
		}
		if back, err := ParseSchemas(SchemasText(names)); err != nil || !slices.Equal(back, names) {
			t.Fatalf("ParseSchemas(%q) = %q, shown as %q, read back as %q, %v", s, names, SchemasText(names), back, err)
		}
	})
}

// FuzzWithSearchPath: for any DSN pgx accepts and any schema name, the DSN
// with the search path still reaches the same server as the same user with
// the same password, and its search_path is the schema, quoted.
func FuzzWithSearchPath(f *testing.F) {
	for _, c := range [][2]string{
		{"postgres://u:pw@localhost:5432/db", "tpcc1"}, {"postgresql://h1,h2:5433/db?sslmode=disable", "public"},
		{"host=/tmp dbname=db user=u password=secret", `we"ird`}, {"host=x password='a b\\' c'", `a'b\c`},
		{"postgres://u@h/db?search_path=old", "Mixed Case"}, {"dbname=db", ""}, {"postgres:///db?host=/tmp", "tpcc2"},
		{"host=h dbname=x\\", "s"}, {"postgres://u:p%40ss@h/d%2Fb", "s"},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, dsn, schema string) {
		before, err := pgx.ParseConfig(dsn)
		if err != nil {
			return
		}
		out, err := WithSearchPath(dsn, schema)
		if err != nil {
			if before.Password != "" && strings.Contains(err.Error(), before.Password) {
				t.Fatalf("WithSearchPath(%q, %q): the error shows the password: %v", dsn, schema, err)
			}
			t.Fatalf("WithSearchPath(%q, %q): %v for a DSN pgx reads", dsn, schema, err)
		}
		after, err := pgx.ParseConfig(out)
		if err != nil {
			t.Fatalf("WithSearchPath(%q, %q) = %q, which pgx does not read: %v", dsn, schema, out, err)
		}
		if after.Host != before.Host || after.Port != before.Port || after.User != before.User ||
			after.Password != before.Password || after.Database != before.Database {
			t.Fatalf("WithSearchPath(%q, %q) = %q reaches %s:%d/%s as %s, not %s:%d/%s as %s", dsn, schema, out,
				after.Host, after.Port, after.Database, after.User, before.Host, before.Port, before.Database, before.User)
		}
		want := before.RuntimeParams["search_path"]
		if schema != "" && schema != DefaultSchema {
			want = pgx.Identifier{schema}.Sanitize()
		}
		if got := after.RuntimeParams["search_path"]; got != want {
			t.Fatalf("WithSearchPath(%q, %q) = %q: search_path %q, want %q", dsn, schema, out, got, want)
		}
	})
}
