package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// DefaultLockWait is how long a command waits for another one to release the lab.
const DefaultLockWait = 5 * time.Second

const lockName = "pgoltp.lock"

func lockPath(lab string) string { return filepath.Join(lab, lockName) }

// Held locks of this process, by lab. flock belongs to an open file
// description: a second open of the lock file in the same process would wait
// for the first forever. A process that already holds a lab's lock (a test
// that calls Up, then Apply) takes it again for free.
var (
	heldMu sync.Mutex
	held   = map[string]*labLock{}
)

type labLock struct {
	f          *os.File
	refs       int
	createdLab bool // removed again on release if nothing but the lock is in it
}

// LockLab takes the lab's exclusive lock for a command that creates, starts,
// stops, changes the settings of or destroys its cluster. It creates the lab
// directory if needed and, as root, refuses one that another user may write
// to. A lab held by another process is waited for up to wait, then refused
// with a problem naming the holder (command and pid). Call the returned
// function to release the lock.
func LockLab(lab, command string, wait time.Duration) (unlock func(), err error) {
	lab, err = filepath.Abs(lab)
	if err != nil {
		return nil, err
	}
	heldMu.Lock()
	defer heldMu.Unlock()
	if l := held[lab]; l != nil {
		l.refs++
		return func() { release(lab) }, nil
	}
	createdLab, err := ensureLab(lab)
	if err != nil {
		if createdLab {
			_ = os.Remove(lab)
		}
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		f, err := openNoFollow(lockPath(lab), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, problem.Wrap(err, "check the lab directory's permissions", "cannot open the lab's lock file %s", lockPath(lab))
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			// A destroy may have removed the file we opened while we waited:
			// then the lock is on an unlinked file and protects nothing.
			if sameFile(f, lockPath(lab)) {
				if !isLockFile(f) {
					f.Close()
					return nil, problem.BadInput("move it away, or choose another --lab",
						"refusing to use %s as the lab's lock: pgoltp did not create it", lockPath(lab))
				}
				_ = f.Truncate(0)
				_, _ = f.WriteAt([]byte(fmt.Sprintf("%s\n%d\n", command, os.Getpid())), 0)
				held[lab] = &labLock{f: f, refs: 1, createdLab: createdLab}
				return func() { release(lab) }, nil
			}
			f.Close()
			continue
		}
		holder := readHolder(f)
		f.Close()
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("locking the lab: %w", err)
		}
		if time.Now().After(deadline) {
			if createdLab {
				_ = os.Remove(lab) // only if empty
			}
			return nil, problem.BadInput("wait for it to finish, or use another --lab",
				"the lab %s is busy: %s holds it", lab, holder)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func release(lab string) {
	heldMu.Lock()
	defer heldMu.Unlock()
	l := held[lab]
	if l == nil {
		return
	}
	if l.refs--; l.refs > 0 {
		return
	}
	delete(held, lab)
	_ = l.f.Truncate(0)
	if l.createdLab && onlyLockIn(lab) {
		// A command refused after locking leaves no empty lab behind. The
		// file goes while still locked: LockLab re-checks what it locked.
		_ = os.Remove(lockPath(lab))
		_ = os.Remove(lab)
	}
	l.f.Close() // closing the last descriptor releases the flock
}

func onlyLockIn(lab string) bool {
	entries, err := os.ReadDir(lab)
	return err == nil && len(entries) == 1 && entries[0].Name() == lockName
}

// holdsLock reports whether this process holds the lab's lock.
func holdsLock(lab string) bool {
	heldMu.Lock()
	defer heldMu.Unlock()
	return held[lab] != nil
}

// isLockFile reports whether f is empty or holds what LockLab writes
// (command, pid): any other content is someone else's file.
func isLockFile(f *os.File) bool {
	b := make([]byte, 257)
	n, _ := f.ReadAt(b, 0)
	if n == 0 {
		return true
	}
	lines := strings.Split(string(b[:n]), "\n")
	if n > 256 || len(lines) != 3 || lines[2] != "" {
		return false
	}
	_, err := strconv.Atoi(lines[1])
	return err == nil
}

func readHolder(f *os.File) string {
	b := make([]byte, 256)
	n, _ := f.ReadAt(b, 0)
	lines := strings.Split(string(b[:n]), "\n")
	if len(lines) < 2 || strings.TrimSpace(lines[1]) == "" {
		return "another pgoltp command"
	}
	return fmt.Sprintf("'pgoltp %s' (pid %s)", strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1]))
}

func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}
