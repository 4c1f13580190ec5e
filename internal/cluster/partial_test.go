package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// exitedPID returns the id of a process that has run and been reaped.
func exitedPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot start a process: %v", err)
	}
	return cmd.Process.Pid
}

// What a killed download left (its jar and its unpacked tree, named for a
// process that is gone) is removed by the next download, which says so; the
// entries of a download still running, and anything pgoltp did not name,
// stay.
func TestDownloadSweepsKilledDownloads(t *testing.T) {
	cache := t.TempDir()
	dead, live := exitedPID(t), os.Getppid()
	left := []string{
		fmt.Sprintf(".partial-%d-jar-123", dead),
		fmt.Sprintf(".partial-%d-unpack-456", dead),
	}
	kept := []string{
		fmt.Sprintf(".partial-%d-jar-789", live),
		"download-1.jar", ".partial-x-jar-1", "notes.txt",
	}
	for _, name := range append(append([]string{}, left...), kept...) {
		path := filepath.Join(cache, name)
		if strings.Contains(name, "unpack") {
			if err := os.MkdirAll(filepath.Join(path, "bin"), 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	repo := newFakeRepo(t)
	repo.sha256 = strings.Repeat("cd", 32) // the download itself fails: only the sweep matters
	d := repo.downloader(nil)
	d.build = "17.99.0"
	var out bytes.Buffer
	if _, err := d.download(context.Background(), fakeArtifact, 17, cache, &out); err == nil {
		t.Fatal("the download with a wrong digest succeeded")
	}
	for _, name := range left {
		if _, err := os.Lstat(filepath.Join(cache, name)); err == nil {
			t.Errorf("%s, left by a killed download, is still in the cache", name)
		}
		if !strings.Contains(out.String(), name) {
			t.Errorf("the output does not say %s was removed: %q", name, out.String())
		}
	}
	for _, name := range kept {
		if _, err := os.Lstat(filepath.Join(cache, name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}
}
