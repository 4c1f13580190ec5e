package runfile_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/runfile"
)

// TestWriteUniqueNeverOverwrites writes three reports with the same name in
// quick succession: three files must exist, each with its own content, 0600.
func TestWriteUniqueNeverOverwrites(t *testing.T) {
	lab := t.TempDir()
	root, err := os.OpenRoot(lab)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, body := range []string{"one", "two", "three"} {
		if _, err := runfile.WriteUnique(root, "experiments", "experiment-20260101T000000Z", ".json", []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(lab, "experiments")
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

// TestLabWritesStayInTheLab: a file written under the lab's root never lands
// outside it, whether a directory of the lab is a symlink leading out or the
// name climbs out with "..".
func TestLabWritesStayInTheLab(t *testing.T) {
	lab, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(lab, "reports")); err != nil {
		t.Fatal(err)
	}
	root, err := runfile.OpenLab(lab)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	write := func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }
	if err := runfile.WriteIn(root, "reports/r.html", write); err == nil {
		t.Error("WriteIn wrote through a symlink leading out of the lab")
	}
	if err := runfile.WriteIn(root, "../"+filepath.Base(outside)+"/victim.html", write); err == nil {
		t.Error("WriteIn wrote outside the lab through ..")
	}
	if _, err := runfile.WriteUnique(root, "reports", "r", ".json", []byte("x")); err == nil {
		t.Error("WriteUnique wrote through a symlink leading out of the lab")
	}
	if left, _ := os.ReadDir(outside); len(left) != 0 {
		t.Errorf("files written outside the lab: %v", left)
	}
}

// TestOpenLabRefusesAFile: a lab that is not a directory is bad input.
func TestOpenLabRefusesAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hostname")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{"CheckLab": runfile.CheckLab(file), "OpenLab": openLabErr(file)} {
		if problem.ExitCode(err) != problem.ExitBadInput || !strings.Contains(fmt.Sprint(err), "not a directory") {
			t.Errorf("%s(a file) = %v, want bad input saying it is not a directory", name, err)
		}
	}
}

func openLabErr(lab string) error {
	root, err := runfile.OpenLab(lab)
	if err == nil {
		root.Close()
	}
	return err
}

// TestLabOfAnotherUserRefusedAsRoot: as root, a lab owned by another user is
// refused, as 'cluster up' refuses it.
func TestLabOfAnotherUserRefusedAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the ownership check applies when pgoltp runs as root")
	}
	lab := t.TempDir()
	if err := os.Chown(lab, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{"CheckLab": runfile.CheckLab(lab), "OpenLab": openLabErr(lab)} {
		if problem.ExitCode(err) != problem.ExitBadInput || !strings.Contains(fmt.Sprint(err), "belongs to uid 65534") {
			t.Errorf("%s(a lab of uid 65534) = %v, want it refused", name, err)
		}
	}
}
