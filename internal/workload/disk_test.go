package workload

import (
	"errors"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/problem"
)

func freeBytes(n int64) func() (int64, error) { return func() (int64, error) { return n, nil } }

// TestCheckRoom: a load bigger than the free space (plus what it replaces)
// is refused on one line naming both sizes and the fix, exit 2; one that
// fits, or whose disk cannot be seen, is not.
func TestCheckRoom(t *testing.T) {
	err := CheckRoom("a TPC-C load of 100000 warehouses", 10_000_000_000_000, 0, freeBytes(50_000_000_000), "load fewer --warehouses", nil)
	if problem.ExitCode(err) != problem.ExitBadInput {
		t.Fatalf("too big a load: %v (exit %d), want exit 2", err, problem.ExitCode(err))
	}
	for _, want := range []string{"100000 warehouses", "10 TB", "50 GB free", "--warehouses"} {
		if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("refusal %q does not say %q on one line", err, want)
		}
	}
	if err := CheckRoom("a load", 16_000_000, 15_000_000, freeBytes(2_000_000), "fix", nil); err != nil {
		t.Errorf("a load that fits once it drops the old tables: %v", err)
	}
	var note strings.Builder
	if err := CheckRoom("a load", 16_000_000, 0, nil, "fix", &note); err != nil {
		t.Errorf("a load onto a disk that cannot be seen: %v", err)
	}
	if !strings.HasPrefix(note.String(), "note: a load needs about 16 MB") {
		t.Errorf("a load onto a disk that cannot be seen: note %q, want the estimate", note.String())
	}
	broken := errors.New("statfs failed")
	if err := CheckRoom("a load", 1, 0, func() (int64, error) { return 0, broken }, "fix", nil); !errors.Is(err, broken) {
		t.Errorf("unreadable free space: %v, want it reported", err)
	}
}

func TestFreeDisk(t *testing.T) {
	n, err := FreeDisk(t.TempDir())
	if err != nil || n <= 0 {
		t.Fatalf("FreeDisk = %d, %v", n, err)
	}
}
