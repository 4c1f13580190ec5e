package group

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzValidateName: an accepted --group name is 1 to 64 ASCII letters,
// digits, '-', '_' or '.', starting with a letter or digit, so a plain file
// name and one shell word; a refused one gets a one-line error.
func FuzzValidateName(f *testing.F) {
	for _, s := range []string{"g", "run-1", "A.b_c", strings.Repeat("x", 64), "", "-x", "a b", "a/b", "é", "x;y", strings.Repeat("x", 65),
		"..", "a..b", ".hidden", "a\nb", "a\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		err := ValidateName(name)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("ValidateName(%q): the error is not one line: %q", name, err)
			}
			return
		}
		if len(name) < 1 || len(name) > 64 || filepath.Base(name) != name || name[0] == '.' || name[0] == '-' {
			t.Fatalf("ValidateName(%q) accepted a name that is no plain file name", name)
		}
		for _, c := range []byte(name) {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
				t.Fatalf("ValidateName(%q) accepted the byte %q", name, c)
			}
		}
	})
}

// FuzzParseRate: a part's stored group_rate reads back as a rate with a
// positive period, which Params writes back to the same rate.
func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"tpmC|New-Order|tpmC|1m0s", "tps|all|tps|1s", "a|b|c|0s", "a|b|c|-1s", "a|b|c", "|||1ns", "x|y|z|1h30m", "a|b|c|d|1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, ok := parseRate(s)
		if !ok {
			return
		}
		if r.Per <= 0 {
			t.Fatalf("parseRate(%q) = %+v: not a positive period", s, r)
		}
		if r.Type == "" {
			return // Params stores no rate without a type
		}
		kv := Params("g", r)
		if len(kv) != 2 {
			t.Fatalf("parseRate(%q) = %+v, which Params does not store: %v", s, r, kv)
		}
		if back, ok := parseRate(kv[1].Value); !ok || back != r {
			t.Fatalf("parseRate(%q) = %+v, stored as %q, read back as %+v", s, r, kv[1].Value, back)
		}
	})
}
