package e2e_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/store"
)

// labWithRun makes a lab holding one stored (complete) run and returns the
// lab and the run's id.
func labWithRun(t *testing.T) (lab, id string) {
	t.Helper()
	lab = filepath.Join(t.TempDir(), "lab")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id, err := storeWhole(ctx, lab, "", &store.Run{Workload: "tpcb", Title: "stored", StartedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return lab, id
}

// TestRunIDFromStoreIsNeverAPath: a run id in results.db set to climb out of
// the lab must not make 'report' write where it points; the store is
// reported corrupt (exit 2) by every command that reads the id.
func TestRunIDFromStoreIsNeverAPath(t *testing.T) {
	t.Parallel()
	lab, id := labWithRun(t)
	victimDir := filepath.Join(filepath.Dir(lab), "rootonly")
	if err := os.Mkdir(victimDir, 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(lab, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE pgoltp_runs SET id = ? WHERE id = ?`, "../../rootonly/victim", id); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, args := range [][]string{{"report", "last"}, {"report", "../"}, {"report", "last", "--format", "json"}, {"runs"}} {
		r := runPgoltp(t, time.Minute, append([]string{"--lab", lab}, args...)...)
		assertOneLineProblem(t, r, "corrupt", store.FileName)
	}
	if left, _ := os.ReadDir(victimDir); len(left) != 0 {
		t.Errorf("a report was written outside the lab: %v", left)
	}
}

// TestReportsSymlinkOutOfTheLabRefused: LAB/reports pointing outside the lab
// is refused; nothing is written where it points.
func TestReportsSymlinkOutOfTheLabRefused(t *testing.T) {
	t.Parallel()
	lab, _ := labWithRun(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(lab, "reports")); err != nil {
		t.Fatal(err)
	}
	r := runPgoltp(t, time.Minute, "--lab", lab, "report", "last")
	assertOneLineProblem(t, r, filepath.Join(lab, "reports"))
	if left, _ := os.ReadDir(outside); len(left) != 0 {
		t.Errorf("the report went through the symlink: %v", left)
	}
}

// TestLabOfAnotherUserRefusedByReadCommands: as root, the commands that
// open a lab's results refuse a lab another user owns or may write to, as
// 'cluster up' does.
func TestLabOfAnotherUserRefusedByReadCommands(t *testing.T) {
	t.Parallel()
	if !isRoot() {
		t.Skip("the ownership check applies when pgoltp runs as root")
	}
	lab, _ := labWithRun(t)
	if err := os.Chown(lab, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"runs"}, {"report", "last"}, {"compare", "last", "last~1"}} {
		r := runPgoltp(t, time.Minute, append([]string{"--lab", lab}, args...)...)
		assertOneLineProblem(t, r, "belongs to uid 65534", "chown root")
	}
	if _, err := os.Stat(filepath.Join(lab, "reports")); err == nil {
		t.Error("report wrote into the refused lab")
	}
	if err := os.Chown(lab, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(lab, 0o777); err != nil {
		t.Fatal(err)
	}
	r := runPgoltp(t, time.Minute, "--lab", lab, "runs")
	assertOneLineProblem(t, r, "other users may write", "chmod go-w")
}

// TestCorruptResultsStore: random bytes or a directory in place of
// results.db is said to be corrupt (exit 2, naming the file) and left
// exactly as it was, by the read commands and by a command that records.
func TestCorruptResultsStore(t *testing.T) {
	t.Parallel()
	garbage := make([]byte, 8192)
	if _, err := rand.Read(garbage); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"random bytes", "directory"} {
		t.Run(kind, func(t *testing.T) {
			lab := t.TempDir()
			path := filepath.Join(lab, store.FileName)
			var err error
			if kind == "directory" {
				err = os.Mkdir(path, 0o755)
			} else {
				err = os.WriteFile(path, garbage, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			before, _ := os.Lstat(path)
			for _, args := range [][]string{{"runs"}, {"runs", "--format", "json"}, {"report"}} {
				r := runPgoltp(t, time.Minute, append([]string{"--lab", lab}, args...)...)
				assertOneLineProblem(t, r, "corrupt", path, "move it aside")
			}
			after, err := os.Lstat(path)
			if err != nil || after.Mode() != before.Mode() || after.ModTime() != before.ModTime() {
				t.Errorf("the store was changed: %v → %v (%v)", before.Mode(), after, err)
			}
			if kind == "random bytes" {
				if b, _ := os.ReadFile(path); !bytes.Equal(b, garbage) {
					t.Error("the corrupt store's bytes were changed")
				}
			}
		})
	}
}

// TestLabThatIsAFileIsBadInput: --lab naming a file is bad input, exit 2.
func TestLabThatIsAFileIsBadInput(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "hostname")
	if err := os.WriteFile(file, []byte("host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"runs"}, {"report"}, {"compare", "a", "b"}} {
		r := runPgoltp(t, time.Minute, append([]string{"--lab", file}, args...)...)
		assertOneLineProblem(t, r, "not a directory", file)
	}
}
