package host

import (
	"os"

	"golang.org/x/sys/unix"
)

// dataSync flushes f's data with fdatasync, PostgreSQL's default
// wal_sync_method on Linux.
func dataSync(f *os.File) error { return unix.Fdatasync(int(f.Fd())) }
