package pgtest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// Tests that change the machine (kernel and disk settings, through
// internal/ossettings) run one at a time across every test package, and
// never while a test runs a pgoltp command whose output it checks: while an
// OS change is pending, every pgoltp command on the machine says so on
// standard error (as it must), and internal/ossettings lets one lab change
// the OS at a time. A lock file shared by the test processes orders them:
// MachineWide holds it exclusively for a test's duration, CommandOutput
// shared for one command.

var machineLockPath = filepath.Join(os.TempDir(), "pgoltp-tests-machine.lock")

// exclusive names the tests of this process that hold the lock
// exclusively: their own commands need no shared hold (and would wait for
// themselves).
var exclusive sync.Map

// MachineWide waits until no other test changes the machine or checks a
// command's output, and holds that until t ends.
func MachineWide(t testing.TB) {
	t.Helper()
	release := lockMachine(t, unix.LOCK_EX)
	exclusive.Store(t.Name(), true)
	t.Cleanup(func() {
		exclusive.Delete(t.Name())
		release()
	})
}

// CommandOutput waits until no test changes the machine and returns the
// release of the shared hold, to call once the command has ended. Inside a
// MachineWide test it holds nothing.
func CommandOutput(t testing.TB) (release func()) {
	t.Helper()
	for name := t.Name(); ; name = filepath.Dir(name) {
		if _, ok := exclusive.Load(name); ok {
			return func() {}
		}
		if name == "." || name == "/" {
			break
		}
	}
	return lockMachine(t, unix.LOCK_SH)
}

func lockMachine(t testing.TB, how int) func() {
	f, err := os.OpenFile(machineLockPath, os.O_RDONLY|os.O_CREATE, 0o644) // flock needs no write access
	if err != nil {
		t.Fatalf("test machine lock: %v", err)
	}
	if err := unix.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		t.Fatalf("test machine lock: %v", err)
	}
	return func() { f.Close() }
}
