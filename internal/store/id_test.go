package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
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

// TestOpenRefusesCorruptStore: Open, as a recording command calls it, calls
// a results.db that is not SQLite, or not a file, corrupt (exit 2) and leaves
// it exactly as it was.
func TestOpenRefusesCorruptStore(t *testing.T) {
	garbage := []byte("this is not a database, but someone's file\n")
	for _, kind := range []string{"bytes", "directory", "symlink"} {
		lab := t.TempDir()
		path := filepath.Join(lab, store.FileName)
		var err error
		switch kind {
		case "bytes":
			err = os.WriteFile(path, garbage, 0o644)
		case "directory":
			err = os.Mkdir(path, 0o755)
		case "symlink":
			err = os.Symlink(filepath.Join(lab, "elsewhere"), path)
		}
		if err != nil {
			t.Fatal(err)
		}
		s, err := store.Open(context.Background(), lab, "")
		if err == nil {
			s.Close()
		}
		if problem.ExitCode(err) != problem.ExitBadInput || !strings.Contains(fmt.Sprint(err), "corrupt") || !strings.Contains(fmt.Sprint(err), path) {
			t.Errorf("%s: Open = %v, want a corrupt-store problem naming %s", kind, err, path)
		}
		if kind == "bytes" {
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
				t.Errorf("the corrupt store's mode was changed to %v", fi.Mode().Perm())
			}
			if b, _ := os.ReadFile(path); string(b) != string(garbage) {
				t.Error("the corrupt store was overwritten")
			}
		}
		if _, err := os.Lstat(filepath.Join(lab, "elsewhere")); err == nil {
			t.Errorf("%s: a file was created through the symlink", kind)
		}
	}
}
