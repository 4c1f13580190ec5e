package server

import (
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// FuzzWithConnectTimeout: any --dsn pgx reads comes back bounded by a
// connect timeout (its own, or 10 s), reaching the same server as the same
// user with the same password.
func FuzzWithConnectTimeout(f *testing.F) {
	f.Setenv("PGCONNECT_TIMEOUT", "")
	for _, dsn := range []string{
		"postgres://bench:pw@db.example:5433/app?sslmode=disable", "postgresql://db.example/app",
		"postgres://db.example/app?connect_timeout=3", "host=db.example port=5433 dbname=app password='a b'",
		"host=/tmp dbname=app connect_timeout=4", "postgres://u:p?w@h/db", "postgres://h1:5432,h2:5433/db",
		"postgres://h/db?options=-c%20work_mem%3D64MB", "host=h dbname=x\\", "host=h dbname=", "connect_timeout=0 host=h",
	} {
		f.Add(dsn)
	}
	f.Fuzz(func(t *testing.T, dsn string) {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			return
		}
		out := withConnectTimeout(dsn, cfg)
		got, err := pgx.ParseConfig(out)
		if err != nil {
			t.Fatalf("%q → %q, which pgx does not read: %v", dsn, out, err)
		}
		want := cfg.ConnectTimeout
		if want <= 0 {
			want = 10 * time.Second
		}
		if got.ConnectTimeout != want {
			t.Errorf("%q → %q: connect timeout %v, want %v", dsn, out, got.ConnectTimeout, want)
		}
		if got.Host != cfg.Host || got.Port != cfg.Port || got.Database != cfg.Database || got.User != cfg.User ||
			got.Password != cfg.Password || len(got.RuntimeParams) != len(cfg.RuntimeParams) {
			t.Errorf("%q → %q: the rest of the DSN changed", dsn, out)
		}
		for k, v := range cfg.RuntimeParams {
			if got.RuntimeParams[k] != v {
				t.Errorf("%q → %q: %s is %q, was %q", dsn, out, k, got.RuntimeParams[k], strings.TrimSpace(v))
			}
		}
	})
}
