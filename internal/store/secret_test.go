package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/store"
)

// TestNoSecretStored: a password in a run's parameter, note or fact is never
// written to results.db, and is read back redacted.
func TestNoSecretStored(t *testing.T) {
	ctx := context.Background()
	lab := t.TempDir()
	s, err := store.Open(ctx, lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	run := &store.Run{Workload: "tpcb", Title: "t", StartedAt: start,
		Params: []store.KV{{Name: "dsn", Value: "host=x password=hunter2-param"}},
		Notes:  []string{"via postgres://u:hunter2-note@h/db"}}
	if _, err := s.Begin(ctx, run); err != nil {
		t.Fatal(err)
	}
	run.EndedAt, run.Status = start.Add(time.Second), store.Complete
	run.Samples = &collect.Samples{Start: start, End: run.EndedAt, Interval: time.Second,
		Facts: []collect.Fact{{Scope: "server", Name: "primary_conninfo", Value: "password=hunter2-fact"}}}
	if err := s.Finish(ctx, run); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, f := range []string{store.FileName, store.FileName + "-wal"} {
		if b, _ := os.ReadFile(filepath.Join(lab, f)); strings.Contains(string(b), "hunter2") {
			t.Errorf("%s holds a password", f)
		}
	}
	s, err = store.Open(ctx, lab, "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Find(ctx, "last")
	if err != nil {
		t.Fatal(err)
	}
	if got.Params[0].Value != "(redacted)" || got.Notes[0] != "(redacted)" || got.Samples.Facts[0].Value != "(redacted)" {
		t.Errorf("read back %v, %v, %v", got.Params, got.Notes, got.Samples.Facts)
	}
}

// TestSearchDocumentKeepsNoSecret: a search's document is stored with its
// secrets redacted, whatever its owner put in it.
func TestSearchDocumentKeepsNoSecret(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	doc := `{"start":{"primary_conninfo":"host=x password=hunter2","work_mem":"4MB"}}`
	if err := s.SaveSearch(ctx, &store.Search{ID: "tune-20260101T000000Z", Kind: "tune", Started: time.Now(), Document: []byte(doc)}); err != nil {
		t.Fatal(err)
	}
	got, err := s.LoadSearch(ctx, "tune-20260101T000000Z")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got.Document), "hunter2") || !strings.Contains(string(got.Document), `"work_mem":"4MB"`) {
		t.Errorf("stored document %s", got.Document)
	}
}
