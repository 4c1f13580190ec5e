package server

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestDefaultConnectTimeout: a --dsn without connect_timeout gets 10 s, in
// both forms, and one that sets it keeps its own; the rest of the DSN is kept.
func TestDefaultConnectTimeout(t *testing.T) {
	t.Setenv("PGCONNECT_TIMEOUT", "")
	cases := []struct {
		dsn  string
		want time.Duration
	}{
		{"postgres://bench:pw@db.example:5433/app?sslmode=disable", 10 * time.Second},
		{"postgresql://db.example/app", 10 * time.Second},
		{"postgres://db.example/app?connect_timeout=3", 3 * time.Second},
		{"host=db.example port=5433 dbname=app password='a b'", 10 * time.Second},
		{"host=/tmp dbname=app connect_timeout=4", 4 * time.Second},
	}
	for _, c := range cases {
		cfg, err := pgx.ParseConfig(c.dsn)
		if err != nil {
			t.Fatal(err)
		}
		out := withConnectTimeout(c.dsn, cfg)
		got, err := pgx.ParseConfig(out)
		if err != nil {
			t.Fatalf("%s → %s: %v", c.dsn, out, err)
		}
		if got.ConnectTimeout != c.want {
			t.Errorf("%s → %s: connect timeout %v, want %v", c.dsn, out, got.ConnectTimeout, c.want)
		}
		if got.Host != cfg.Host || got.Port != cfg.Port || got.Database != cfg.Database || got.User != cfg.User || got.Password != cfg.Password {
			t.Errorf("%s → %s: the rest of the DSN changed", c.dsn, out)
		}
	}
}
