package tpcc

import (
	"slices"
	"strings"
	"testing"
)

// TestCompareMarks: a resumed load keeps the tables only when every
// warehouse's rows are its mark's and no unmarked warehouse has rows.
func TestCompareMarks(t *testing.T) {
	done := map[unitKey]int64{{"stock", 1}: 100_000, {"stock", 2}: 100_000, {"item", 0}: 100_000}
	if d := compareMarks("stock", map[int]int64{1: 100_000, 2: 100_000}, done); len(d) != 0 {
		t.Errorf("matching rows reported as %v", d)
	}
	d := compareMarks("stock", map[int]int64{1: 100_000, 2: 99_999, 3: 5}, done)
	slices.Sort(d)
	if len(d) != 2 || !strings.Contains(d[0], "warehouse 2 has 99999 rows, its mark 100000") || !strings.Contains(d[1], "warehouse 3 has 5 rows and no mark") {
		t.Errorf("differences %q", d)
	}
	if d := compareMarks("item", map[int]int64{}, done); len(d) != 1 {
		t.Errorf("an empty marked table: %q", d)
	}
}
