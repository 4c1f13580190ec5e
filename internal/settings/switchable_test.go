package settings

import "testing"

// TestSwitchable: reload settings whose effect settles in seconds may be
// switched within a run; restart settings and those whose effect builds
// over minutes may not; every name on the list is a catalog setting that a
// reload changes (a typo would silently never switch).
func TestSwitchable(t *testing.T) {
	for _, name := range []string{"commit_delay", "wal_writer_delay", "synchronous_commit", "work_mem", "random_page_cost", "jit", "bgwriter_lru_maxpages", InjectRows} {
		if ok, why := Switchable(name, 15); !ok {
			t.Errorf("%s not switchable: %s", name, why)
		}
	}
	for _, name := range []string{"shared_buffers", "checkpoint_timeout", "max_wal_size", "autovacuum_naptime", "huge_pages", "default_statistics_target", "no_such_setting"} {
		if ok, why := Switchable(name, 15); ok || why == "" {
			t.Errorf("%s switchable (%q)", name, why)
		}
	}
	for name, on := range settlesInSeconds {
		if !on {
			continue
		}
		for _, major := range []int{13, 15, 17} {
			if s, ok := Lookup(name, major); ok && s.NeedsRestart() {
				t.Errorf("%s needs a restart on %d but is listed as switchable", name, major)
			}
		}
		if _, ok := Lookup(name, 15); !ok {
			t.Errorf("%s is listed as switchable but is not in the catalog for 15", name)
		}
	}
}
