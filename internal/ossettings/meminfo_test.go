package ossettings

import (
	"os"
	"testing"
)

// TestMeminfoFields: the machine's memory and huge page size are read from
// /proc/meminfo by their field names, in bytes.
func TestMeminfoFields(t *testing.T) {
	if _, err := os.Stat("/proc/meminfo"); err != nil {
		t.Skip("no /proc/meminfo here")
	}
	if ram := memTotal(); ram < 64<<20 || ram%1024 != 0 {
		t.Errorf("memTotal %d: want the machine's memory in bytes", ram)
	}
	if hp := hugePageSize(); hp != 0 && (hp < 64<<10 || hp&(hp-1) != 0) {
		t.Errorf("hugePageSize %d: want a power of two of at least 64 kB, or 0", hp)
	}
	if meminfoBytes("NoSuchField:") != 0 {
		t.Error("a field /proc/meminfo lacks is not 0")
	}
}
