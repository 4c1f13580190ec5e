package settings

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Memory and time units as PostgreSQL's GUC parser accepts them (guc.c:
// memory_unit_conversion_table, time_unit_conversion_table). Memory is in
// bytes, time in milliseconds. The unit names are case-sensitive in PostgreSQL.
var (
	memoryUnits = map[string]float64{"B": 1, "kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}
	timeUnits   = map[string]float64{"us": 0.001, "ms": 1, "s": 1000, "min": 60000, "h": 3600000, "d": 86400000}
)

// unitScale splits a pg_settings unit such as "8kB" or "16MB" into its family
// ("memory" or "time") and its size in bytes or milliseconds. An empty unit has
// family "" and scale 1.
func unitScale(unit string) (family string, scale float64, err error) {
	if unit == "" {
		return "", 1, nil
	}
	i := 0
	for i < len(unit) && unit[i] >= '0' && unit[i] <= '9' {
		i++
	}
	mult := 1.0
	if i > 0 {
		m, _ := strconv.Atoi(unit[:i])
		mult = float64(m)
	}
	base := unit[i:]
	if s, ok := memoryUnits[base]; ok {
		return "memory", mult * s, nil
	}
	if s, ok := timeUnits[base]; ok {
		return "time", mult * s, nil
	}
	return "", 0, fmt.Errorf("unknown unit %q", unit)
}

// ToUnit converts a value as a person writes it ("256MB", "5min", "0.9", "128")
// into a number in unit, the setting's pg_settings unit. A bare number is
// already in unit, as in postgresql.conf. PostgreSQL rounds to the nearest whole
// unit for integer settings; callers that need that do it themselves.
func ToUnit(value, unit string) (float64, error) {
	v := strings.TrimSpace(value)
	v = strings.Trim(v, "'")
	if v == "" {
		return 0, fmt.Errorf("empty value")
	}
	if num, err := strconv.ParseFloat(v, 64); err == nil {
		if math.IsNaN(num) || math.IsInf(num, 0) {
			// ParseFloat reads "NaN" and "Inf"; PostgreSQL refuses them, and
			// NaN would pass every range check.
			return 0, fmt.Errorf("%q is not a number", value)
		}
		return num, nil // a bare number is already in unit
	}
	i := numberPrefix(v)
	num, err := strconv.ParseFloat(v[:i], 64)
	if err != nil || i == 0 {
		return 0, fmt.Errorf("%q is not a number", value)
	}
	suffix := strings.TrimSpace(v[i:])
	if suffix == "" {
		return num, nil
	}
	family, scale, err := unitScale(unit)
	if err != nil {
		return 0, err
	}
	switch family {
	case "memory":
		s, ok := memoryUnits[suffix]
		if !ok {
			return 0, fmt.Errorf("%q: unit %q is not a memory unit (use B, kB, MB, GB or TB)", value, suffix)
		}
		return num * s / scale, nil
	case "time":
		s, ok := timeUnits[suffix]
		if !ok {
			return 0, fmt.Errorf("%q: unit %q is not a time unit (use us, ms, s, min, h or d)", value, suffix)
		}
		return num * s / scale, nil
	}
	return 0, fmt.Errorf("%q: this setting takes a plain number, without a unit", value)
}

// numberPrefix returns the length of the number at the start of v: digits,
// sign and point, and an exponent ("1e3kB", which PostgreSQL 12 and later
// read as 1000kB). No unit starts with "e", so an "e" followed by digits is
// always the exponent.
func numberPrefix(v string) int {
	digitAt := func(i int) bool { return i < len(v) && v[i] >= '0' && v[i] <= '9' }
	i := 0
	for i < len(v) && (digitAt(i) || v[i] == '.' || v[i] == '-' || v[i] == '+') {
		i++
	}
	if i == 0 || i >= len(v) || (v[i] != 'e' && v[i] != 'E') {
		return i
	}
	j := i + 1
	if j < len(v) && (v[j] == '+' || v[j] == '-') {
		j++
	}
	if !digitAt(j) {
		return i
	}
	for digitAt(j) {
		j++
	}
	return j
}

// ParseBool reads a boolean the way PostgreSQL does (on/off, true/false,
// yes/no, 1/0, and unambiguous prefixes of them).
func ParseBool(value string) (bool, error) {
	v := strings.ToLower(strings.Trim(strings.TrimSpace(value), "'"))
	switch {
	case v == "1" || v == "on":
		return true, nil
	case v == "0" || v == "off" || v == "of":
		return false, nil
	case v != "" && strings.HasPrefix("true", v), v != "" && strings.HasPrefix("yes", v):
		return true, nil
	case v != "" && strings.HasPrefix("false", v), v != "" && strings.HasPrefix("no", v):
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean (use on or off)", value)
}

// FormatMemory writes a size in kB the way postgresql.conf reads best: the
// largest unit that represents it exactly ("8GB", "1536MB", "64kB").
func FormatMemory(kB int64) string {
	switch {
	case kB != 0 && kB%(1<<30) == 0:
		return strconv.FormatInt(kB>>30, 10) + "TB"
	case kB != 0 && kB%(1<<20) == 0:
		return strconv.FormatInt(kB>>20, 10) + "GB"
	case kB != 0 && kB%(1<<10) == 0:
		return strconv.FormatInt(kB>>10, 10) + "MB"
	}
	return strconv.FormatInt(kB, 10) + "kB"
}

// FormatDuration writes a time in seconds with the largest exact unit ("5min", "30s", "1h").
func FormatDuration(seconds int64) string {
	switch {
	case seconds != 0 && seconds%3600 == 0:
		return strconv.FormatInt(seconds/3600, 10) + "h"
	case seconds != 0 && seconds%60 == 0:
		return strconv.FormatInt(seconds/60, 10) + "min"
	}
	return strconv.FormatInt(seconds, 10) + "s"
}

// Check verifies that value is acceptable to a server with this range: a
// boolean, one of the enum values, or a number (with a fitting unit) within
// [Min, Max]. The error is one line a person can act on.
func (r Range) Check(value string) error {
	switch r.Kind {
	case Bool:
		_, err := ParseBool(value)
		return err
	case Enum:
		v := strings.ToLower(strings.Trim(strings.TrimSpace(value), "'"))
		for _, e := range r.Enum {
			if strings.ToLower(e) == v {
				return nil
			}
		}
		// PostgreSQL also accepts boolean spellings for some enums (synchronous_commit, huge_pages).
		if b, err := ParseBool(v); err == nil {
			want := "off"
			if b {
				want = "on"
			}
			for _, e := range r.Enum {
				if e == want {
					return nil
				}
			}
		}
		return fmt.Errorf("%q is not one of %s", value, strings.Join(r.Enum, ", "))
	case Integer, Real:
		n, err := ToUnit(value, r.Unit)
		if err != nil {
			return err
		}
		if r.Kind == Integer {
			n = math.Round(n)
		}
		if n < r.Min || n > r.Max {
			return fmt.Errorf("%q is outside the range %s..%s", value, r.show(r.Min), r.show(r.Max))
		}
		return nil
	}
	return nil
}

func (r Range) show(n float64) string {
	s := strconv.FormatFloat(n, 'g', -1, 64)
	if r.Unit != "" {
		s += " (×" + r.Unit + ")"
	}
	return s
}

// Format writes n, a number in the range's unit, as a value a person would
// write in postgresql.conf: "1GB" for 131072 in 8kB units, "5min" for 300 s.
func (r Range) Format(n float64) string {
	family, scale, err := unitScale(r.Unit)
	if err != nil || family == "" || r.Kind != Integer || n < 0 {
		return strconv.FormatFloat(n, 'f', -1, 64)
	}
	if family == "memory" {
		bytes := n * scale
		if bytes < 1024 || math.Mod(bytes, 1024) != 0 {
			return strconv.FormatFloat(bytes, 'f', 0, 64) + "B"
		}
		return FormatMemory(int64(bytes / 1024))
	}
	ms := n * scale
	if ms >= 1000 && math.Mod(ms, 1000) == 0 {
		return FormatDuration(int64(ms / 1000))
	}
	return strconv.FormatFloat(ms, 'f', 0, 64) + "ms"
}
