package ossettings

import (
	"strconv"
	"strings"
	"testing"
)

// fragmentedKernel reserves at most free huge pages per write, and each
// compaction makes more contiguous memory free, as the kernel does.
type fragmentedKernel struct {
	free, perCompaction int64
	reserved            int64
	writes, compactions int
}

func (k *fragmentedKernel) set(v string) error {
	want, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return err
	}
	k.writes++
	k.reserved = min(want, k.free)
	return nil
}

func (k *fragmentedKernel) reservedNow() (int64, error) { return k.reserved, nil }

func (k *fragmentedKernel) compact() error {
	k.compactions++
	k.free += k.perCompaction
	return nil
}

// TestReserveHugepagesCompactsWhenShort: a short reservation (the kernel
// gave 114 of 562 on a host full of page cache) is retried after
// compacting memory; one still short after the tries is an error that says
// how many were reserved and the fix.
func TestReserveHugepagesCompactsWhenShort(t *testing.T) {
	k := &fragmentedKernel{free: 114, perCompaction: 300}
	if err := reserveHugepages(k.set, k.reservedNow, k.compact, 562); err != nil {
		t.Fatalf("two compactions make room for 562 pages: %v", err)
	}
	if k.reserved != 562 || k.compactions != 2 || k.writes != 3 {
		t.Errorf("reserved %d after %d writes and %d compactions, want 562 after 3 and 2", k.reserved, k.writes, k.compactions)
	}

	k = &fragmentedKernel{free: 114}
	err := reserveHugepages(k.set, k.reservedNow, k.compact, 562)
	if err == nil || !strings.Contains(err.Error(), "only 114 of the 562") || !strings.Contains(err.Error(), "reserve them at boot") {
		t.Fatalf("a kernel that never finds room: %v, want the shortfall and the fix", err)
	}
	if k.writes != reservationTries {
		t.Errorf("%d writes, want %d tries", k.writes, reservationTries)
	}

	k = &fragmentedKernel{free: 1000}
	if err := reserveHugepages(k.set, k.reservedNow, k.compact, 562); err != nil || k.compactions != 0 {
		t.Errorf("room at once: err %v, %d compactions, want none", err, k.compactions)
	}
}
