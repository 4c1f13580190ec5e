//go:build linux

package tune

import (
	"os"
	"syscall"
	"testing"
)

// The /proc readings go through procfs; check them against what the kernel
// reports by other means, so a wrong field or unit shows.
func TestProcReadings(t *testing.T) {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		t.Fatal(err)
	}
	if got, want := readMeminfo().Total, int64(si.Totalram)*int64(si.Unit); got != want {
		t.Errorf("MemTotal = %d bytes, sysinfo says %d", got, want)
	}
	if got, want := parentPID(os.Getpid()), os.Getppid(); got != want {
		t.Errorf("parentPID = %d, want %d", got, want)
	}
	if isLocalBackend(os.Getpid()) {
		t.Error("the test binary was taken for a PostgreSQL backend")
	}
	if peakVirtualMemory(os.Getpid()) <= 0 {
		t.Error("no VmPeak for this process")
	}
	if sw := sysctlInt("vm.swappiness"); sw < 0 || sw > 200 {
		t.Errorf("vm.swappiness = %d", sw)
	}
	if sysctlInt("vm.no_such_setting") != -1 {
		t.Error("a missing sysctl must read as -1")
	}
	if len(cgroupPaths()) == 0 {
		t.Error("no cgroup found for this process")
	}
}
