package settings_test

import (
	"testing"

	"github.com/pgoltp/pgoltp/internal/settings"
)

// Settings that appeared, changed type or were renamed between 10 and 18.
func TestCatalogVersionSpans(t *testing.T) {
	cases := []struct {
		name  string
		major int
		has   bool
		kind  settings.Kind
	}{
		{"jit", 10, false, ""},
		{"jit", 11, true, settings.Bool},
		{"max_parallel_maintenance_workers", 10, false, ""},
		{"wal_recycle", 11, false, ""},
		{"wal_recycle", 12, true, settings.Bool},
		{"wal_keep_segments", 10, true, settings.Integer},
		{"wal_keep_segments", 12, true, settings.Integer},
		{"wal_keep_segments", 13, false, ""},
		{"wal_keep_size", 12, false, ""},
		{"wal_keep_size", 13, true, settings.Integer},
		{"vacuum_cost_delay", 11, true, settings.Integer},
		{"vacuum_cost_delay", 12, true, settings.Real},
		{"autovacuum_vacuum_cost_delay", 10, true, settings.Integer},
		{"autovacuum_vacuum_cost_delay", 18, true, settings.Real},
	}
	for _, c := range cases {
		s, ok := settings.Lookup(c.name, c.major)
		if ok != c.has || (ok && s.Kind != c.kind) {
			t.Errorf("%s on PostgreSQL %d: found=%v kind=%s, want found=%v kind=%s", c.name, c.major, ok, s.Kind, c.has, c.kind)
		}
	}
}
