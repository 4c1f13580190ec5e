package connstr_test

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/connstr"
)

// dsnSeeds are connection strings of both forms, with the corners libpq
// reads differently from net/url.
var dsnSeeds = []string{
	"postgres://u:pw@localhost:5432/db", "postgresql://h1,h2:5433/db?sslmode=disable",
	"postgres://bench:pw@db.example:5433/app?sslmode=disable", "postgres://u:p?w@h/db", "postgres://u:p%40ss@h/d%2Fb",
	"postgres://h/db?options=-c%20work_mem%3D64MB", "postgres://h/db?", "postgres://h1:5432,h2:5433/db", "postgres:///db?host=/tmp",
	"host=/tmp dbname=db user=u password=secret", "host=x password='a b\\' c'", "host=h dbname=x\\", "host=h dbname=",
	"dbname=a=", "host=h dbname=x\\ ", "host=db.example port=5433 dbname=app password='a b'", "dbname=db search_path=old", "connect_timeout=0 0=", "search_path=a x= ", "",
}

// FuzzWith: the parameter set in a DSN pgx reads is in force when pgx reads
// the result, which still reaches the same server as the same user with the
// same password and other parameters; a DSN that cannot take it gets a
// one-line error without the password.
func FuzzWith(f *testing.F) {
	for i, dsn := range dsnSeeds {
		f.Add(dsn, []string{"search_path", "connect_timeout", "application_name"}[i%3], []string{`"tpcc1"`, "10", "a b+c'd\\e"}[i%3])
	}
	f.Fuzz(func(t *testing.T, dsn, key, value string) {
		if key != "connect_timeout" && key != "search_path" && key != "application_name" {
			return // With sets connect_timeout and run-time parameters
		}
		before, err := pgconn.ParseConfig(dsn)
		if err != nil || strings.ContainsRune(value, 0) {
			return
		}
		out, err := connstr.With(dsn, key, value)
		if err != nil {
			if strings.Contains(err.Error(), "\n") || before.Password != "" && strings.Contains(err.Error(), before.Password) {
				t.Fatalf("With(%q, %s, %q): the error is not one line without the password: %q", dsn, key, value, err)
			}
			return
		}
		after, err := pgconn.ParseConfig(out)
		if err != nil {
			t.Fatalf("With(%q, %s, %q) = %q, which pgx does not read: %v", dsn, key, value, out, err)
		}
		if after.Host != before.Host || after.Port != before.Port || after.Database != before.Database ||
			after.User != before.User || after.Password != before.Password {
			t.Fatalf("With(%q, %s, %q) = %q reaches another server or user", dsn, key, value, out)
		}
		if key != "connect_timeout" && after.RuntimeParams[key] != value {
			t.Fatalf("With(%q, %s, %q) = %q: %s is %q", dsn, key, value, out, key, after.RuntimeParams[key])
		}
	})
}

// Every seed DSN takes a connect timeout and a search path: the fallback
// error is for strings no person writes.
func TestWithSeeds(t *testing.T) {
	for _, dsn := range dsnSeeds {
		if _, err := pgconn.ParseConfig(dsn); err != nil {
			continue
		}
		for _, kv := range [][2]string{{"connect_timeout", "10"}, {"search_path", `"Mixed Case"`}} {
			if _, err := connstr.With(dsn, kv[0], kv[1]); err != nil {
				t.Errorf("With(%q, %s): %v", dsn, kv[0], err)
			}
		}
	}
}
