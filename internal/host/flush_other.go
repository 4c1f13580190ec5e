//go:build !linux

package host

import "os"

// dataSync flushes f with fsync: fdatasync is Linux's.
func dataSync(f *os.File) error { return f.Sync() }
