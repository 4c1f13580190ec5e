package ossettings

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// compactMemoryPath asks the kernel to compact free memory into contiguous
// blocks (writing 1 starts it; it holds no setting, so nothing to restore).
const compactMemoryPath = "/proc/sys/vm/compact_memory"

// reservationTries bounds how often a short huge page reservation is
// retried after compacting memory.
const reservationTries = 3

// reserveHugepages sets vm.nr_hugepages to want. The kernel reserves what it
// can find contiguous and says nothing: on a host with gigabytes of page
// cache it may give a fifth of a request (114 of 562 here). When it falls
// short, memory is compacted and the request written again; what is still
// missing after that is an error naming the fix, before any run.
func reserveHugepages(set func(string) error, reserved func() (int64, error), compact func() error, want int64) error {
	var got int64
	for try := 0; try < reservationTries; try++ {
		if err := set(strconv.FormatInt(want, 10)); err != nil {
			return err
		}
		var err error
		if got, err = reserved(); err != nil {
			return err
		}
		if got >= want {
			return nil
		}
		if err := compact(); err != nil {
			break // compaction unavailable: report the shortfall
		}
	}
	return fmt.Errorf("the kernel reserved only %d of the %d huge pages asked for (memory too fragmented); free memory first (sync; echo 1 > /proc/sys/vm/drop_caches) or reserve them at boot (vm.nr_hugepages in /etc/sysctl.d), then run again", got, want)
}

// writeNrHugepages is Machine.write for vm.nr_hugepages: a lower value (a
// restore) is written once; a higher one goes through reserveHugepages.
func (m *Machine) writeNrHugepages(path, value string) error {
	want, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return fmt.Errorf("setting %s=%s: not a number", NrHugepages, value)
	}
	set := func(v string) error { return writeFile(path, v) }
	reserved := func() (int64, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0, err
		}
		return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	}
	if now, err := reserved(); err == nil && want <= now {
		return set(value)
	}
	compact := func() error { return writeFile(compactMemoryPath, "1") }
	return reserveHugepages(set, reserved, compact, want)
}
