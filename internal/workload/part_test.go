package workload

import "testing"

func TestPartRangesTileTheWhole(t *testing.T) {
	for total := 1; total <= 12; total++ {
		for n := 1; n <= total; n++ {
			next, smallest, largest := 1, total, 0
			for k := 1; k <= n; k++ {
				first, count, err := Part{K: k, N: n}.Range(total)
				if err != nil {
					t.Fatalf("%d/%d of %d: %v", k, n, total, err)
				}
				if first != next || count < 1 {
					t.Fatalf("%d/%d of %d: range %d+%d, want it to start at %d and be non-empty", k, n, total, first, count, next)
				}
				next = first + count
				smallest, largest = min(smallest, count), max(largest, count)
			}
			if next != total+1 {
				t.Fatalf("%d parts of %d end at %d, want %d", n, total, next-1, total)
			}
			if largest-smallest > 1 {
				t.Fatalf("%d parts of %d: sizes %d..%d differ by more than one", n, total, smallest, largest)
			}
		}
	}
}

func TestPartRangeExamples(t *testing.T) {
	cases := []struct {
		p            Part
		total        int
		first, count int
	}{
		{Part{}, 7, 1, 7},
		{Part{1, 3}, 10, 1, 4},
		{Part{2, 3}, 10, 5, 3},
		{Part{3, 3}, 10, 8, 3},
		{Part{2, 2}, 2, 2, 1},
	}
	for _, c := range cases {
		first, count, err := c.p.Range(c.total)
		if err != nil || first != c.first || count != c.count {
			t.Errorf("%v of %d = %d+%d (%v), want %d+%d", c.p, c.total, first, count, err, c.first, c.count)
		}
	}
}

func TestParsePart(t *testing.T) {
	good := map[string]Part{"1/1": {1, 1}, "2/4": {2, 4}, " 3/3 ": {3, 3}}
	for s, want := range good {
		if p, err := ParsePart(s); err != nil || p != want {
			t.Errorf("ParsePart(%q) = %v, %v; want %v", s, p, err, want)
		}
	}
	for _, s := range []string{"", "2", "0/3", "4/3", "-1/2", "a/b", "1/0", "1/2/3"} {
		if _, err := ParsePart(s); err == nil {
			t.Errorf("ParsePart(%q) accepted", s)
		}
	}
	if _, _, err := (Part{K: 1, N: 3}).Range(2); err == nil {
		t.Error("3 parts of 2 warehouses accepted")
	}
}
