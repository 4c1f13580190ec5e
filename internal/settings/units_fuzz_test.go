package settings_test

import (
	"math"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/settings"
)

// fuzzedSettings are the settings FuzzRangeCheck checks values against: one
// of each kind and unit family a plan or --set can touch.
var fuzzedSettings = []string{
	"shared_buffers", "work_mem", "wal_buffers", "checkpoint_timeout", "checkpoint_completion_target",
	"commit_delay", "autovacuum_vacuum_cost_delay", "synchronous_commit", "fsync", "wal_sync_method",
}

// FuzzRangeCheck: a value a person writes for a setting ("256MB", "5min",
// "on") is accepted only when it is a finite number within the range in a
// fitting unit (or a boolean, or one of the enum values); an accepted number
// survives Format (the form advise and the tuner write) unchanged; a refused
// value gets a one-line error.
func FuzzRangeCheck(f *testing.F) {
	for i, v := range []string{"1GB", "256MB", "5min", "2s", "4096", "0.9", "64kB", "1TB", "30s", "1h", "1d",
		"500us", "8kB", "'16MB'", " 1 GB ", "on", "off", "local", "fdatasync", "-1", "1e3", "NaN", "Inf", "-Inf",
		"99999999999999999999", "1.5MB", "0.5", "100000", "5 min", "1..5MB", "+-5", "0x10", "999999999999\n", "true", "of"} {
		f.Add(v, uint8(i))
	}
	f.Fuzz(func(t *testing.T, value string, which uint8) {
		s, ok := settings.Lookup(fuzzedSettings[int(which)%len(fuzzedSettings)], 17)
		if !ok {
			t.Fatal("a fuzzed setting is missing from the catalog")
		}
		err := s.Range.Check(value)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("%s=%q: the error is not one line: %q", s.Name, value, err)
			}
			return
		}
		if s.Kind != settings.Integer && s.Kind != settings.Real {
			return
		}
		n, err := settings.ToUnit(value, s.Unit)
		if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
			t.Fatalf("%s=%q passes Check but reads as %v, %v", s.Name, value, n, err)
		}
		if s.Kind == settings.Integer {
			n = math.Round(n)
		}
		if n < s.Min || n > s.Max {
			t.Fatalf("%s=%q passes Check at %v, outside %v..%v", s.Name, value, n, s.Min, s.Max)
		}
		if s.Kind != settings.Integer {
			return
		}
		written := s.Range.Format(n)
		back, err := settings.ToUnit(written, s.Unit)
		if err != nil || back != n || s.Range.Check(written) != nil {
			t.Fatalf("%s=%q is %v, written %q, which reads back as %v, %v", s.Name, value, n, written, back, err)
		}
	})
}

// FuzzToUnit: any value in any pg_settings unit converts to a finite number
// or a one-line error, and never panics.
func FuzzToUnit(f *testing.F) {
	for _, c := range [][2]string{{"1GB", "8kB"}, {"256MB", "kB"}, {"5min", "s"}, {"2s", "ms"}, {"4096", "kB"},
		{"0.9", ""}, {"16MB", "16MB"}, {"1h", "min"}, {"NaN", "kB"}, {"1e400", "ms"}, {"5", "99999999999999999999kB"}, {"3x", "q"}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, value, unit string) {
		n, err := settings.ToUnit(value, unit)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("ToUnit(%q, %q): the error is not one line: %q", value, unit, err)
			}
			return
		}
		if math.IsNaN(n) {
			t.Fatalf("ToUnit(%q, %q) = NaN, accepted", value, unit)
		}
	})
}

// FuzzParseBool: a boolean reads the same after being written as on/off, and
// anything else is a one-line error.
func FuzzParseBool(f *testing.F) {
	for _, v := range []string{"on", "off", "of", "o", "true", "t", "yes", "y", "no", "n", "false", "1", "0", "'on'", " ON ", "", "2", "tru e"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, value string) {
		b, err := settings.ParseBool(value)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("ParseBool(%q): the error is not one line: %q", value, err)
			}
			return
		}
		written := map[bool]string{true: "on", false: "off"}[b]
		if back, err := settings.ParseBool(written); err != nil || back != b {
			t.Fatalf("ParseBool(%q) = %v, but %q reads as %v, %v", value, b, written, back, err)
		}
	})
}

// FuzzParseAssignments: an accepted name=value has a name without '=' or
// surrounding space, and name=value written back reads the same.
func FuzzParseAssignments(f *testing.F) {
	for _, kv := range []string{"work_mem=64MB", " shared_buffers = 1GB ", "a=", "=x", "noequals", "a==b", "search_path='a,b'", "x=y=z"} {
		f.Add(kv)
	}
	f.Fuzz(func(t *testing.T, kv string) {
		got, err := settings.ParseAssignments([]string{kv})
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("ParseAssignments(%q): the error is not one line: %q", kv, err)
			}
			return
		}
		a := got[0]
		if a.Name == "" || strings.Contains(a.Name, "=") || a.Name != strings.TrimSpace(a.Name) || a.Given != kv {
			t.Fatalf("ParseAssignments(%q) = %+v", kv, a)
		}
		again, err := settings.ParseAssignments([]string{a.Name + "=" + a.Value})
		if err != nil || again[0].Name != a.Name || again[0].Value != a.Value {
			t.Fatalf("%q reads as %+v, written back as %+v, %v", kv, a, again, err)
		}
	})
}
