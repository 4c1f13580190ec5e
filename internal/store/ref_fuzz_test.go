package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/store"
)

// FuzzValidID: an id ValidID accepts is a plain file name: 1 to 64
// letters, digits, '-' or '_', so never "/", "." or "..".
func FuzzValidID(f *testing.F) {
	for _, id := range []string{store.NewID(time.Now()), "tune-20261123T114502Z", "r1", "", "../../rootonly/victim", "a/b", "..", ".x",
		"a b", "a\x00", strings.Repeat("a", 65), strings.Repeat("a", 64), "é", "a\\b", "-", "_"} {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if !store.ValidID(id) {
			return
		}
		if len(id) < 1 || len(id) > 64 || strings.ContainsAny(id, `/\.`) || filepath.Base(id) != id || filepath.IsAbs(id) {
			t.Fatalf("ValidID(%q) = true for an id that is not a plain file name", id)
		}
		for _, c := range []byte(id) {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				t.Fatalf("ValidID(%q) = true with the byte %q", id, c)
			}
		}
	})
}

// FuzzFind: what the user types to name a run (an id, a unique prefix,
// last, last~N) resolves to a stored run, to itself when it is an id, or
// to a one-line bad-input error; never to anything else.
func FuzzFind(f *testing.F) {
	ctx := context.Background()
	s, err := store.Open(ctx, f.TempDir(), "")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	ids := []string{"20261123-120000-aaaa", "20261123-120100-aaab", "20261123-120200-bbbb"}
	for i, id := range ids {
		r := &store.Run{ID: id, Workload: "tpcb", StartedAt: base.Add(time.Duration(i) * time.Minute)}
		if _, err := s.Begin(ctx, r); err != nil {
			f.Fatal(err)
		}
		if err := s.Finish(ctx, r); err != nil {
			f.Fatal(err)
		}
	}
	for _, ref := range []string{"last", "latest", "last~1", "last~9", ids[0], "20261123-1202", "20261123-120", "nope", "last~x", "last~-1",
		"last~99999999999999999999", " last ", "", "%", "_", "2026%", "../x", "20261123-120000-aaaa\n", "last~1 "} {
		f.Add(ref)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		r, err := s.Find(ctx, ref)
		if err != nil {
			var p *problem.Problem
			if !errors.As(err, &p) || p.Code != problem.ExitBadInput || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Find(%q): %v is not a one-line bad-input problem", ref, err)
			}
			return
		}
		if !slices.Contains(ids, r.ID) {
			t.Fatalf("Find(%q) found %q, not a stored run", ref, r.ID)
		}
		if slices.Contains(ids, strings.TrimSpace(ref)) && r.ID != strings.TrimSpace(ref) {
			t.Fatalf("Find(%q) found %q, not the run of that id", ref, r.ID)
		}
	})
}
