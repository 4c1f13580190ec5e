package settings

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pgoltp/pgoltp/internal/secret"
)

// LabelFor returns the risk class of setting name to value on one major
// version and a one-line reason. With major 0 it answers for any supported
// version: when the setting's form differs between versions the most cautious
// answer wins. Every output that shows a setting (advice, doctor findings,
// experiment reports, cluster logs) labels it through here.
//
//	settings.LabelFor(0, "fsync", "off")            // can-corrupt-on-crash, "an OS crash or power loss ..."
//	settings.LabelFor(0, "shared_buffers", "8GB")   // restart, "restart needed: PostgreSQL's own page cache; ..."
//	settings.LabelFor(0, "work_mem", "64MB")        // safe, "takes effect on reload: memory per sort/hash ..."
func LabelFor(major int, name, value string) (Risk, string) {
	var forms []Setting
	if major == 0 {
		forms = variants(name)
	} else if s, ok := Lookup(name, major); ok {
		forms = []Setting{s}
	}
	if len(forms) == 0 {
		return Unknown, "not in pgoltp's settings catalog: its cost and risk are unknown"
	}
	risk, why := Safe, ""
	for _, s := range forms {
		r, w := labelOne(s, value)
		if why == "" || r.Rank() > risk.Rank() {
			risk, why = r, w
		}
	}
	return risk, why
}

func labelOne(s Setting, value string) (Risk, string) {
	risk, why := s.BaseRisk(), ""
	switch {
	case s.ReadOnly():
		risk, why = Restart, "read-only: fixed when the server was built or initialized"
	case s.NeedsRestart():
		why = "restart needed: " + s.About
	default:
		why = "takes effect on reload: " + s.About
	}
	if s.Risky != nil {
		if r, w := s.Risky(value); r != "" && r.Rank() >= risk.Rank() {
			// A restart is still needed when it was; keep saying so.
			if s.NeedsRestart() && r != Restart {
				w += " (and needs a restart)"
			}
			risk, why = r, w
		}
	}
	return risk, why
}

// Validate checks value for name on major version major (0: newest form)
// against the catalog: not refused (Refused), a known setting, not read-only, present on that
// version, and within PostgreSQL's accepted range. The error is one line.
func Validate(major int, name, value string) error {
	if err := checkApplicable(name); err != nil {
		return err
	}
	s, ok := Lookup(name, major)
	if !ok {
		if len(variants(name)) > 0 {
			return fmt.Errorf("setting %s does not exist on PostgreSQL %d", name, major)
		}
		return fmt.Errorf("unknown setting %s", name)
	}
	if s.ReadOnly() {
		return fmt.Errorf("setting %s is read-only", name)
	}
	if err := s.Check(value); err != nil {
		return fmt.Errorf("%s = %s: %v", name, value, err)
	}
	return nil
}

// Pair is one name=value with its label, ready to print.
type Pair struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Risk  Risk   `json:"risk"`
	Why   string `json:"why"`
}

// Labelled labels every pair of a map, sorted by name; secret values are
// redacted (secret.Redact).
func Labelled(major int, values map[string]string) []Pair {
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]Pair, 0, len(names))
	for _, n := range names {
		r, w := LabelFor(major, n, values[n])
		out = append(out, Pair{Name: n, Value: secret.Redact(n, values[n]), Risk: r, Why: w})
	}
	return out
}

// WorstRisk returns the riskiest class among the values (Safe for none).
func WorstRisk(major int, values map[string]string) Risk {
	worst := Safe
	for n, v := range values {
		r, _ := LabelFor(major, n, v)
		worst = worst.Worse(r)
	}
	return worst
}

// Tag is the short marker printed next to an unsafe value in any output,
// e.g. "fsync=off [UNSAFE: can-corrupt-on-crash]"; empty for other classes.
func Tag(r Risk) string {
	if !r.Unsafe() {
		return ""
	}
	return "[UNSAFE: " + string(r) + "]"
}

func lower(s string) string { return strings.ToLower(strings.Trim(strings.TrimSpace(s), "'")) }
