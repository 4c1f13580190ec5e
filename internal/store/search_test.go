package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/store"
)

// TestSearchLinks: a search's document and the runs linked to it come back
// from either backend, in the order the runs started, with their roles;
// "latest" and prefixes resolve to the newest and the matching search, and
// a search of another kind is not found.
func TestSearchLinks(t *testing.T) {
	ctx := context.Background()
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			t0 := time.Now().Add(-time.Hour).Truncate(time.Microsecond)
			var ids []string
			for i, role := range []string{"baseline", "trial", "baseline"} {
				r := &store.Run{Workload: "tpcb", Title: role, StartedAt: t0.Add(time.Duration(i) * time.Minute)}
				if _, err := s.Begin(ctx, r); err != nil {
					t.Fatal(err)
				}
				r.Status = store.Complete
				if err := s.Finish(ctx, r); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, r.ID)
			}
			// Linked out of order: the order read back is the runs' own.
			for _, i := range []int{2, 0, 1} {
				trial := map[int]int{0: 0, 1: 1, 2: 1}[i]
				if err := s.LinkRun(ctx, "tune-a1", store.SearchRun{RunID: ids[i], Role: []string{"baseline", "trial", "baseline"}[i], Trial: trial, Label: "x"}); err != nil {
					t.Fatal(err)
				}
			}
			for _, sr := range []*store.Search{
				{ID: "tune-a1", Kind: "tune", Title: "first", Started: t0, Document: []byte(`{"v":1}`)},
				{ID: "tune-b2", Kind: "tune", Title: "second", Started: t0.Add(time.Minute), Document: []byte(`{"v":2}`)},
				{ID: "tune-a1", Kind: "tune", Title: "first", Started: t0, Document: []byte(`{"v":3}`)}, // rewritten
				{ID: "other-c3", Kind: "other", Title: "not tune", Started: t0.Add(time.Hour), Document: []byte(`{}`)},
			} {
				if err := s.SaveSearch(ctx, sr); err != nil {
					t.Fatal(err)
				}
			}
			for ref, want := range map[string]string{"": "tune-b2", "latest": "tune-b2", "tune-a": "tune-a1", "tune-b2": "tune-b2"} {
				got, err := s.ResolveSearch(ctx, "tune", ref)
				if err != nil || got != want {
					t.Errorf("ResolveSearch(%q) = %q, %v; want %q", ref, got, err, want)
				}
			}
			if _, err := s.ResolveSearch(ctx, "tune", "other-c3"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("a search of another kind resolved: %v", err)
			}
			if _, err := s.ResolveSearch(ctx, "tune", "tune-"); err == nil || errors.Is(err, store.ErrNotFound) {
				t.Errorf("an ambiguous prefix did not say so: %v", err)
			}
			sr, err := s.LoadSearch(ctx, "tune-a1")
			if err != nil {
				t.Fatal(err)
			}
			if string(sr.Document) != `{"v":3}` || sr.Title != "first" || !sr.Started.Equal(t0) {
				t.Errorf("search read back as %+v (document %s)", sr, sr.Document)
			}
			if len(sr.Runs) != 3 {
				t.Fatalf("%d linked runs, want 3", len(sr.Runs))
			}
			for i, l := range sr.Runs {
				if l.RunID != ids[i] || l.Status != store.Complete || l.Title != l.Role {
					t.Errorf("linked run %d: %+v, want run %s", i, l, ids[i])
				}
			}
			if sr.Runs[1].Role != "trial" || sr.Runs[1].Trial != 1 {
				t.Errorf("the trial run lost its role: %+v", sr.Runs[1])
			}
			if _, err := s.LoadSearch(ctx, "tune-zz"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("LoadSearch of a missing search: %v", err)
			}
		})
	}
}
