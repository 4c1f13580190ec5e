package e2e_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestClusterRefusesLabLinksAndFiles: a regular file named data makes
// 'cluster up' refuse in one line, exit 2 (it was chowned to the server user
// and initdb failed with exit 1), and a log symlink makes 'cluster destroy'
// refuse without deleting the link's target.
func TestClusterRefusesLabLinksAndFiles(t *testing.T) {
	t.Parallel()
	lab := labDir(t)
	data := filepath.Join(lab, "data")
	if err := os.MkdirAll(lab, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(data, []byte("a user's file"), 0o644); err != nil {
		t.Fatal(err)
	}
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "cluster", "up", "--lab", lab), data, "not a directory")
	if err := os.Remove(data); err != nil {
		t.Fatal(err)
	}

	if r := runPgoltp(t, 5*time.Minute, "cluster", "up", "--lab", lab); r.code != 0 {
		t.Fatalf("cluster up: exit %d: %s", r.code, r.stderr)
	}
	logDir := filepath.Join(lab, "log")
	t.Cleanup(func() {
		_ = os.Remove(logDir)
		_ = os.Rename(logDir+".real", logDir)
		runPgoltp(t, time.Minute, "cluster", "destroy", "--lab", lab)
	})
	victim := filepath.Join(t.TempDir(), "server.log")
	if err := os.WriteFile(victim, []byte("someone's log"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(logDir, logDir+".real"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(victim), logDir); err != nil {
		t.Fatal(err)
	}
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "cluster", "destroy", "--lab", lab), logDir, "symlink")
	if b, err := os.ReadFile(victim); err != nil || string(b) != "someone's log" {
		t.Errorf("destroy deleted or changed the link's target: %q %v", b, err)
	}
}
