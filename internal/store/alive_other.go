//go:build !unix

package store

import "os"

// processAlive says whether process pid exists on this machine (on Windows
// FindProcess opens the process, which fails when it is gone).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
