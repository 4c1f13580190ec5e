//go:build linux

package host

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
	if got, want := ReadMeminfo().Total, int64(si.Totalram)*int64(si.Unit); got != want {
		t.Errorf("MemTotal = %d bytes, sysinfo says %d", got, want)
	}
	if got, want := ParentPID(os.Getpid()), os.Getppid(); got != want {
		t.Errorf("parentPID = %d, want %d", got, want)
	}
	if IsLocalBackend(os.Getpid()) {
		t.Error("the test binary was taken for a PostgreSQL backend")
	}
	if PeakVirtualMemory(os.Getpid()) <= 0 {
		t.Error("no VmPeak for this process")
	}
	if sw := SysctlInt("vm.swappiness"); sw < 0 || sw > 200 {
		t.Errorf("vm.swappiness = %d", sw)
	}
	if SysctlInt("vm.no_such_setting") != -1 {
		t.Error("a missing sysctl must read as -1")
	}
	if len(cgroupPaths()) == 0 {
		t.Error("no cgroup found for this process")
	}
}
