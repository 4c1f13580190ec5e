package cluster

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// A lab held by another process is refused after a short wait, naming the
// holder; once released it can be taken.
func TestLockLabHeldElsewhere(t *testing.T) {
	lab := mustAbs(t, newLab(t)) // an existing lab: it stays when unlocked
	unlock, err := LockLab(lab, "cluster up", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// Another open file description stands in for another process: flock
	// does not care which process holds it.
	other, err := os.OpenFile(lockPath(lab), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	unlock()
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatalf("the lock was not released: %v", err)
	}
	if _, err := other.WriteAt([]byte("experiment\n4242\n"), 0); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	_, err = LockLab(lab, "cluster destroy", 300*time.Millisecond)
	wantBadInput(t, err, "'pgoltp experiment' (pid 4242)", lab)
	if waited := time.Since(start); waited < 300*time.Millisecond {
		t.Errorf("gave up after %v, before the wait", waited)
	}

	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	unlock, err = LockLab(lab, "cluster destroy", time.Second)
	if err != nil {
		t.Fatalf("a released lab could not be locked: %v", err)
	}
	defer unlock()
	b, _ := os.ReadFile(lockPath(lab))
	if want := "cluster destroy\n" + strconv.Itoa(os.Getpid()) + "\n"; string(b) != want {
		t.Errorf("lock file holds %q, want %q", b, want)
	}
}

// Within one process the lock is re-entrant: a test (or a command) that holds
// the lab and then calls code taking it again must not wait for itself.
func TestLockLabReentrant(t *testing.T) {
	lab := newLab(t)
	outer, err := LockLab(lab, "experiment", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	inner, err := LockLab(lab, "cluster up", 0)
	if err != nil {
		t.Fatalf("re-locking in the same process: %v", err)
	}
	inner()
	if !holdsLock(mustAbs(t, lab)) {
		t.Fatal("the inner unlock released the outer lock")
	}
	outer()
	if holdsLock(mustAbs(t, lab)) {
		t.Fatal("the lock is still held after both unlocks")
	}
}

// A lab made only to hold the lock is removed again when the command ends
// without putting anything in it (bad input refused after locking).
func TestLockLabRemovesTheLabItMadeForNothing(t *testing.T) {
	lab := newLab(t)
	unlock, err := LockLab(lab, "cluster up", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if _, err := os.Stat(lab); !os.IsNotExist(err) {
		t.Errorf("an empty lab was left behind: %v", err)
	}

	// A lab that existed, or got content, stays.
	unlock, err = LockLab(lab, "cluster up", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lab+"/cluster.json", []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	unlock()
	if _, err := os.Stat(lab + "/cluster.json"); err != nil {
		t.Errorf("the lab's content was removed: %v", err)
	}
}

// A file named like the lock that pgoltp did not write is not truncated.
func TestLockLabRefusesForeignLockFile(t *testing.T) {
	lab := mustAbs(t, newLab(t))
	if err := os.WriteFile(lockPath(lab), []byte("my shopping list\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LockLab(lab, "cluster up", time.Second)
	wantBadInput(t, err, "did not create")
	if b, _ := os.ReadFile(lockPath(lab)); string(b) != "my shopping list\n" {
		t.Errorf("the file was changed: %q", b)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
