package collect

import "github.com/prometheus/procfs"

// cpuModel is the CPU model name from /proc/cpuinfo ("" if unknown).
func cpuModel(fs procfs.FS) string {
	if ci, err := fs.CPUInfo(); err == nil && len(ci) > 0 {
		return ci[0].ModelName
	}
	return ""
}
