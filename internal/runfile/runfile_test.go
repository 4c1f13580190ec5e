package runfile_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pgoltp/pgoltp/internal/runfile"
)

// TestWriteUniqueNeverOverwrites writes three reports with the same name in
// quick succession: three files must exist, each with its own content, 0600.
func TestWriteUniqueNeverOverwrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "experiments")
	for _, body := range []string{"one", "two", "three"} {
		if _, err := runfile.WriteUnique(dir, "experiment-20260101T000000Z", ".json", []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 3 {
		t.Fatalf("want exactly 3 reports, got %v", files)
	}
	seen := map[string]bool{}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		seen[string(b)] = true
		assertMode(t, f)
	}
	if len(seen) != 3 {
		t.Errorf("a report overwrote another: contents %v", seen)
	}
}

func TestWriteAtomicallyAndCreateAre0600(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "reports", "r.html")
	if err := runfile.WriteAtomically(path, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
		t.Fatal(err)
	}
	assertMode(t, path)
	// A pre-existing world-readable file is tightened when reused.
	old := filepath.Join(dir, "export.csv")
	if err := os.WriteFile(old, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := runfile.Create(old)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	assertMode(t, old)
	// Never through a symlink.
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(filepath.Join(dir, "target"), link); err != nil {
		t.Fatal(err)
	}
	if f, err := runfile.Create(link); err == nil {
		f.Close()
		t.Error("Create followed a symlink")
	}
	if err := runfile.WriteAtomically(link, func(io.Writer) error { return nil }); err == nil {
		t.Error("WriteAtomically replaced a symlink")
	}
}

func assertMode(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %v, want 0600", path, fi.Mode().Perm())
	}
}
