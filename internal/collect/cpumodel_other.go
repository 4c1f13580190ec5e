//go:build !linux

package collect

import "github.com/prometheus/procfs"

// cpuModel: procfs reads /proc/cpuinfo on Linux only.
func cpuModel(procfs.FS) string { return "" }
