package tune

import (
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/search"
	"github.com/pgoltp/pgoltp/internal/settings"
)

const gib = int64(1) << 30

func dimOf(t *testing.T, s *Space, name string) search.Dimension {
	t.Helper()
	for _, d := range s.Dims() {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("no dimension %s in %v", name, s.Names())
	return search.Dimension{}
}

func TestSpaceBoundsFollowTheHost(t *testing.T) {
	small, err := NewSpace(15, nil, Limits{RAM: 2 * gib, CPUs: 1, MaxConnections: 100}, false)
	if err != nil {
		t.Fatal(err)
	}
	big, err := NewSpace(15, nil, Limits{RAM: 64 * gib, CPUs: 8, MaxConnections: 100}, false)
	if err != nil {
		t.Fatal(err)
	}
	if sb := dimOf(t, small, "shared_buffers"); sb.High > 0.4*2048 || !sb.Log {
		t.Errorf("2GiB host: shared_buffers %+v, want at most 40%% of memory, log scale", sb)
	}
	if a, b := dimOf(t, small, "shared_buffers").High, dimOf(t, big, "shared_buffers").High; b <= a {
		t.Errorf("shared_buffers upper bound does not grow with memory: %g vs %g", a, b)
	}
	if a, b := dimOf(t, small, "autovacuum_max_workers").High, dimOf(t, big, "autovacuum_max_workers").High; b <= a {
		t.Errorf("autovacuum_max_workers upper bound does not grow with CPUs: %g vs %g", a, b)
	}
	if hp := dimOf(t, small, "huge_pages"); strings.Contains(strings.Join(hp.Choices, ","), "on") {
		t.Errorf("huge_pages=on offered without reserved huge pages: %v", hp.Choices)
	}
	withHuge, _ := NewSpace(15, nil, Limits{RAM: 2 * gib, CPUs: 1, HugePagesTotal: 512}, false)
	if hp := dimOf(t, withHuge, "huge_pages"); !strings.Contains(strings.Join(hp.Choices, ","), "on") {
		t.Errorf("huge_pages=on not offered with reserved huge pages: %v", hp.Choices)
	}
}

func TestSpaceIsVersionAware(t *testing.T) {
	old, err := NewSpace(12, nil, Limits{RAM: 4 * gib, CPUs: 2}, false)
	if err != nil {
		t.Fatal(err)
	}
	cur, err := NewSpace(15, nil, Limits{RAM: 4 * gib, CPUs: 2}, false)
	if err != nil {
		t.Fatal(err)
	}
	// wal_compression is a boolean before 15, an enum with lz4 since.
	if c := strings.Join(dimOf(t, old, "wal_compression").Choices, ","); strings.Contains(c, "lz4") {
		t.Errorf("PostgreSQL 12 offered wal_compression %s", c)
	}
	if c := strings.Join(dimOf(t, cur, "wal_compression").Choices, ","); !strings.Contains(c, "lz4") {
		t.Errorf("PostgreSQL 15 lacks wal_compression=lz4: %s", c)
	}
}

func TestUnsafeValuesOnlyWithAllowUnsafe(t *testing.T) {
	for _, allow := range []bool{false, true} {
		s, err := NewSpace(15, nil, Limits{RAM: 4 * gib, CPUs: 2}, allow)
		if err != nil {
			t.Fatal(err)
		}
		opt, err := search.New(s.Space, search.Options{Seed: 3, Method: search.Random})
		if err != nil {
			t.Fatal(err)
		}
		sawUnsafe := false
		for i := 0; i < 200; i++ {
			values := s.Settings(opt.Suggest())
			if err := settings.CheckApplicable(values); err != nil {
				t.Fatal(err)
			}
			if u := Unsafe(15, values); len(u) > 0 {
				sawUnsafe = true
				if !allow {
					t.Fatalf("without --allow-unsafe the space produced %v", u)
				}
			}
		}
		if allow && !sawUnsafe {
			t.Errorf("with --allow-unsafe no unsafe value in 200 random points: the option does nothing")
		}
	}
}

func TestFitKeepsTheMemoryBudget(t *testing.T) {
	s, err := NewSpace(15, nil, Limits{RAM: 4 * gib, CPUs: 2, MaxConnections: 200}, false)
	if err != nil {
		t.Fatal(err)
	}
	opt, _ := search.New(s.Space, search.Options{Seed: 7, Method: search.Random})
	over := 0
	for i := 0; i < 300; i++ {
		p := opt.Suggest()
		if s.memoryMB(s.Settings(p)) > s.BudgetMB() {
			over++
		}
		fit, err := s.Fit(p)
		if err != nil {
			t.Fatal(err)
		}
		if used := s.memoryMB(s.Settings(fit)); used > s.BudgetMB() {
			t.Fatalf("fitted point uses %.0fMB, budget %.0fMB: %v", used, s.BudgetMB(), s.Settings(fit))
		}
	}
	if over == 0 {
		t.Fatal("no random point exceeded the budget: the test proves nothing")
	}
	// A host too small for even the lowest values is refused, not clipped below bounds.
	tiny, err := NewSpace(15, nil, Limits{RAM: 300 << 20, CPUs: 1, MaxConnections: 1000}, false)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := search.New(tiny.Space, search.Options{Seed: 1, Method: search.Random})
	if _, err := tiny.Fit(p.Suggest()); err == nil {
		t.Error("1000 connections × 1MB work_mem fitted into 270MB")
	}
}

func TestSettingsRoundTrip(t *testing.T) {
	s, err := NewSpace(15, nil, Limits{RAM: 8 * gib, CPUs: 2}, false)
	if err != nil {
		t.Fatal(err)
	}
	opt, _ := search.New(s.Space, search.Options{Seed: 5, Method: search.Random})
	for i := 0; i < 50; i++ {
		p := opt.Suggest()
		values := s.Settings(p)
		for name, v := range values {
			if err := settings.Validate(15, name, v); err != nil {
				t.Fatalf("%s=%s: %v", name, v, err)
			}
		}
		back, err := s.PointOf(values, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Settings(back); strings.Join(sortedValues(got), ",") != strings.Join(sortedValues(values), ",") {
			t.Fatalf("round trip changed the settings: %v → %v", values, got)
		}
	}
}

func sortedValues(m map[string]string) []string {
	var out []string
	for _, k := range sortedKeys(m) {
		out = append(out, k+"="+m[k])
	}
	return out
}
