package cluster

import (
	"context"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A postmaster killed with SIGKILL that nobody reaps stays a zombie: the
// cluster is not running, and Up starts it again instead of taking the
// zombie for a live server (which left "connection refused").
func TestUpAfterPostmasterZombie(t *testing.T) {
	needPostgres(t)
	lab := newLab(t)
	c := upOrFatal(t, lab)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	// This test process is the postmaster's parent and does not reap it:
	// as a container's init that does not wait for its children.
	postmaster := c.user.command(ctx, c.Lab, filepath.Join(c.BinDir, "postgres"), "-D", c.DataDir)
	if err := postmaster.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = postmaster.Process.Kill(); _ = postmaster.Wait() }()
	if err := c.waitReady(ctx); err != nil {
		t.Fatal(err)
	}
	pid := postmaster.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the postmaster to be a zombie", func() bool { return isZombie(pid) })
	if got, err := postmasterPID(c.DataDir); err != nil || got != pid {
		t.Fatalf("postmaster.pid names %d (%v), want the zombie %d", got, err, pid)
	}
	if c.Running(ctx) {
		t.Error("Running says a zombie postmaster runs")
	}
	c2, err := Up(ctx, Options{Lab: lab})
	if err != nil {
		t.Fatalf("Up after a zombie postmaster: %v", err)
	}
	if got := query(t, c2, "SELECT 'up'"); got != "up" {
		t.Errorf("query = %q", got)
	}
	if !isZombie(pid) {
		t.Error("the zombie was reaped during the test: it did not test a zombie")
	}
}

// isZombie tells an exited, unreaped process from a running one and from
// no process at all.
func TestIsZombie(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if isZombie(pid) || !alive(pid) {
		t.Error("a running process is taken for a zombie")
	}
	_ = cmd.Process.Kill()
	waitFor(t, "the killed child to be a zombie", func() bool { return isZombie(pid) })
	if alive(pid) {
		t.Error("a zombie is taken for a running process")
	}
	_ = cmd.Wait()
	if isZombie(pid) || alive(pid) {
		t.Error("a reaped process is taken for a zombie or a running one")
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !ok(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
