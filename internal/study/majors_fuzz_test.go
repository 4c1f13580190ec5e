package study

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/cluster"
)

// FuzzParseMajors: an accepted --pg is two or more distinct supported
// majors that read back the same when written comma-separated (as a
// versions plan passes them); anything else is a one-line error.
func FuzzParseMajors(f *testing.F) {
	for _, s := range []string{"10, 15,10,18", "", "15", "15,x", "15,0", "15,99", "10,18", ",,10,,11,", "+10,-11", "010,11", "9223372036854775807,10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pg string) {
		majors, err := ParseMajors(pg)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("ParseMajors(%q): the error is not one line: %q", pg, err)
			}
			return
		}
		written := make([]string, len(majors))
		for i, m := range majors {
			if cluster.ValidMajor(m) != nil || slices.Contains(majors[:i], m) {
				t.Fatalf("ParseMajors(%q) = %v", pg, majors)
			}
			written[i] = strconv.Itoa(m)
		}
		if back, err := ParseMajors(strings.Join(written, ",")); len(majors) < 2 || err != nil || !slices.Equal(back, majors) {
			t.Fatalf("ParseMajors(%q) = %v, read back as %v, %v", pg, majors, back, err)
		}
	})
}
