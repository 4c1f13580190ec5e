//go:build unix

package ossettings

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// lockPath is the machine's lock of OS changes: one pgoltp at a time may
// change the OS, whatever its lab (another would take the first one's
// values for originals).
const lockPath = "/run/pgoltp-os.lock"

// The lock file holds the lab of the last command that changed the OS
// until it restored them: a command killed before its restore leaves its
// lab there, and the next one, from any lab, looks there for the record
// (/run empties at boot, when the kernel's values are back anyway).

// lastLab is the lab the lock names, "" when none.
func lastLab(f *os.File) string {
	b := make([]byte, 4096)
	n, _ := f.ReadAt(b, 0)
	return strings.TrimSpace(string(b[:n]))
}

// LastLab is the lab the machine's lock names: where a record of OS
// settings may be pending ("" when none, or unreadable).
func LastLab() string {
	f, err := os.OpenFile(lockPath, os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	return lastLab(f)
}

// setLastLab makes the lock name lab, durably.
func setLastLab(f *os.File, lab string) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt([]byte(lab), 0); err != nil {
		return err
	}
	return f.Sync()
}

// lockMachine takes the machine's lock of OS changes without waiting; the
// kernel releases it when the process ends, even by kill -9.
func lockMachine() (*os.File, error) {
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the lock of OS changes %s: %w", lockPath, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("another pgoltp is changing this machine's OS settings right now (it holds %s)", lockPath)
	}
	return f, nil
}
