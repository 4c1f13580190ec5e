package secret_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/secret"
)

// dsnForms write a connection string holding user and password the ways
// people write them; extra is appended (more parameters, or noise).
var dsnForms = []func(user, password, extra string) string{
	func(u, p, x string) string { return "postgres://" + url.UserPassword(u, p).String() + "@h/db" + x },
	func(u, p, x string) string { return "postgresql://" + u + ":" + p + "@h:5432/db" + x },
	func(u, p, x string) string { return "host=h user=" + quoted(u) + " password=" + quoted(p) + x },
	func(u, p, x string) string { return "host=h " + x + " password = " + p },
	func(u, p, x string) string {
		return "postgres://h/db?user=" + url.QueryEscape(u) + "&password=" + url.QueryEscape(p) + x
	},
	func(u, p, x string) string { return x }, // the fuzzer's own string
}

func quoted(s string) string { return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'" }

// FuzzRedactDSN: whatever connection string pgx reads a password from,
// Redact does not return that password, under any name.
func FuzzRedactDSN(f *testing.F) {
	f.Setenv("PGPASSWORD", "")
	f.Setenv("PGPASSFILE", "/nonexistent/pgpass")
	f.Setenv("PGSERVICEFILE", "/nonexistent/service")
	for i, c := range [][3]string{{"bench", "hunter2", ""}, {"u", "a b", "?sslmode=disable"}, {"u", "p@ss:w/rd", ""},
		{"", "x", " dbname=d"}, {"u", "pw", "&application_name=a"}} {
		f.Add(c[0], c[1], c[2], uint8(i))
	}
	raw := uint8(len(dsnForms) - 1)
	for _, dsn := range []string{"host=x PASSWORD = 'a b'", "postgres://u:hunter2@h/db", "user=u password=s3cret", "postgres://u:p?w@h/db",
		"postgres://h/db?pass%77ord=secret", "postgres://h/db?%70assword=x", "postgresql://u:p w @h/db"} {
		f.Add("", "", dsn, raw)
	}
	f.Fuzz(func(t *testing.T, user, password, extra string, form uint8) {
		dsn := dsnForms[int(form)%len(dsnForms)](user, password, extra)
		cfg, err := pgconn.ParseConfig(dsn)
		if err != nil || cfg.Password == "" {
			return
		}
		for _, name := range []string{"dsn", "work_mem", ""} {
			if out := secret.Redact(name, dsn); out != secret.Redacted && strings.Contains(out, cfg.Password) {
				t.Fatalf("Redact(%q, %q) = %q shows the password %q", name, dsn, out, cfg.Password)
			}
		}
	})
}

// FuzzJSON: a valid JSON document stays valid JSON with the same shape, a
// second pass changes nothing, and a DSN with a password in any string is
// hidden.
func FuzzJSON(f *testing.F) {
	for _, doc := range []string{`{"work_mem":"64MB","primary_conninfo":"host=x password=y"}`,
		`[{"name":"archive_command","setting":"cp %p /x","unit":null}]`, `{"dsn":"postgres://u:hunter2@h/db","n":[1,2.5e3,true]}`,
		`"password=x"`, `{"a":{"b":[{"name":"x","value":"1"}]}}`, `{"\u0070assword":"x"}`, `{`, `[1,]`, ``, `{"a":"b"} {"c":1}`} {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		out, err := secret.JSON(doc)
		if !json.Valid(doc) {
			return // a document pgoltp did not write; it must only not panic
		}
		if err != nil {
			t.Fatalf("JSON(%q): %v", doc, err)
		}
		var before, after any
		if json.Unmarshal(doc, &before) != nil || json.Unmarshal(out, &after) != nil {
			t.Fatalf("JSON(%q) = %q, not valid JSON", doc, out)
		}
		if shape(before) != shape(after) {
			t.Fatalf("JSON(%q) = %q changed the shape", doc, out)
		}
		if again, err := secret.JSON(out); err != nil || !bytes.Equal(again, out) {
			t.Fatalf("JSON(%q) = %q, then %q, %v", doc, out, again, err)
		}
	})
}

// shape writes v's structure without its strings: object keys, array
// lengths, the kinds of values.
func shape(v any) string {
	switch v := v.(type) {
	case map[string]any:
		parts := make([]string, 0, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			parts = append(parts, fmt.Sprintf("%q:%s", k, shape(v[k])))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = shape(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case string:
		return "s"
	}
	return fmt.Sprint(v)
}
