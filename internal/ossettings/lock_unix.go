//go:build unix

package ossettings

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// lockPath is the machine's lock of OS changes: one pgoltp at a time may
// change the OS, whatever its lab (another would take the first one's
// values for originals).
const lockPath = "/run/pgoltp-os.lock"

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
