package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/store"
)

// TestIDAlphabet: the ids pgoltp makes pass, anything that could climb a
// path or name another file does not.
func TestIDAlphabet(t *testing.T) {
	for _, id := range []string{store.NewID(time.Now()), "tune-20261123T114502Z", "r1"} {
		if !store.ValidID(id) {
			t.Errorf("ValidID(%q) = false for an id pgoltp makes", id)
		}
	}
	for _, id := range []string{"", "../../rootonly/victim", "a/b", "..", ".x", "a b", "a\x00", strings.Repeat("a", 65)} {
		if store.ValidID(id) {
			t.Errorf("ValidID(%q) = true", id)
		}
	}
}

// TestMaliciousIDInStoreIsCorrupt: a run id changed in results.db to climb
// out of the lab is a corrupt-store error (exit 2) wherever it is read, and
// such an id is never stored.
func TestMaliciousIDInStoreIsCorrupt(t *testing.T) {
	ctx := context.Background()
	lab := t.TempDir()
	s, err := store.Open(ctx, lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Begin(ctx, &store.Run{ID: "../x", Workload: "tpcb"}); err == nil {
		t.Error("Begin stored the id ../x")
	}
	id, err := s.Begin(ctx, &store.Run{Workload: "tpcb", Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(lab, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE pgoltp_runs SET id = '../../rootonly/victim' WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
	_, listErr := s.List(ctx)
	_, lastErr := s.Find(ctx, "last")
	_, prefixErr := s.Find(ctx, "../")
	_, loadErr := s.Load(ctx, "../../rootonly/victim")
	for name, err := range map[string]error{"List": listErr, "Find last": lastErr, "Find prefix": prefixErr, "Load": loadErr} {
		if problem.ExitCode(err) != problem.ExitBadInput || !strings.Contains(err.Error(), "corrupt") {
			t.Errorf("%s = %v, want a corrupt-store error", name, err)
		}
	}
}
