package pgtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/cluster"
)

// TestReapOrphans: a cluster whose test process is gone is destroyed and its
// directory removed; a directory whose owner lives, and one without an owner
// file, are left alone.
func TestReapOrphans(t *testing.T) {
	base, err := reachableDir("reap-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	mk := func(name, owner string) string {
		dir := filepath.Join(base, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(owner), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	// A process that has exited: its pid names nobody now.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	orphan := mk("orphan", strconv.Itoa(gone.Process.Pid))
	live := mk("live", processID(os.Getpid()))
	unmarked := mk("unmarked", "")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := cluster.Up(ctx, cluster.Options{Lab: filepath.Join(orphan, "lab"), Major: testMajor()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Destroy(context.Background()) })
	pidText, err := os.ReadFile(filepath.Join(c.DataDir, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	postmaster, _ := strconv.Atoi(strings.SplitN(string(pidText), "\n", 2)[0])
	if postmaster <= 0 || syscall.Kill(postmaster, 0) != nil {
		t.Fatalf("postmaster %d of the orphan's cluster is not running", postmaster)
	}

	reaped := reapOrphans(base)
	if len(reaped) != 1 || reaped[0] != orphan {
		t.Errorf("reaped %v, want only %s", reaped, orphan)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("the orphan's directory is still there (%v)", err)
	}
	// The postmaster exits once its shutdown finishes: give it a moment.
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(postmaster, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if syscall.Kill(postmaster, 0) == nil {
		t.Errorf("postmaster %d still runs after the reap", postmaster)
	}
	for _, dir := range []string{live, unmarked} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s was touched: %v", dir, err)
		}
	}
}
