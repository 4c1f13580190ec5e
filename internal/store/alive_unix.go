//go:build unix

package store

import (
	"errors"
	"syscall"
)

// processAlive says whether process pid exists on this machine (signal 0;
// EPERM means it exists under another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
