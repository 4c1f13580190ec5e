package workload

import (
	"strings"
	"testing"
)

// FuzzParsePart: an accepted --part k/n is a real part (1 ≤ k ≤ n) that
// String writes back to the same part, whose range of total units is
// non-empty and inside 1..total; anything else is a one-line error.
func FuzzParsePart(f *testing.F) {
	for _, s := range []string{"1/1", "2/4", " 3/3 ", "", "2", "0/3", "4/3", "-1/2", "a/b", "1/0", "1/2/3", "0/0", "+1/+2", "-0/0", "1/9223372036854775807"} {
		f.Add(s, uint16(10))
	}
	f.Fuzz(func(t *testing.T, s string, total uint16) {
		p, err := ParsePart(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("ParsePart(%q): the error is not one line: %q", s, err)
			}
			return
		}
		if p.Whole() || p.K < 1 || p.K > p.N {
			t.Fatalf("ParsePart(%q) accepted %+v, not a part k of n", s, p)
		}
		if back, err := ParsePart(p.String()); err != nil || back != p {
			t.Fatalf("ParsePart(%q) = %+v, written %q, read back as %+v, %v", s, p, p.String(), back, err)
		}
		first, count, err := p.Range(int(total))
		if err == nil && (count < 1 || first < 1 || first+count-1 > int(total)) {
			t.Fatalf("part %s of %d owns %d+%d", p, total, first, count)
		}
	})
}
