// Package settings is the single source of truth for what pgoltp knows about
// PostgreSQL server settings: each setting's type, unit, the range PostgreSQL
// itself accepts, whether changing it needs a restart, and how risky its values
// are (safe, restart needed, can lose acknowledged commits on a crash, can
// corrupt the database on a crash), with a one-line reason.
//
// The advisor, the doctor, experiments, the cluster and reports all label a
// name=value pair through Label so that every output says the same thing about
// the same setting. The package knows nothing about workloads or clusters; it
// can read pg_settings from a live server (server.go) to validate against the
// real ranges of the version in front of it.
package settings

import (
	"strings"
)

// Risk is the risk class of setting a value. The classes are ordered: a higher
// class includes the costs of the lower ones.
type Risk string

// The risk classes, from harmless to dangerous.
const (
	Safe               Risk = "safe"                   // takes effect on reload, no durability cost
	Restart            Risk = "restart"                // takes effect only after a server restart
	CanLoseDataOnCrash Risk = "can-lose-data-on-crash" // a crash can lose acknowledged commits, never corrupts
	CanCorruptOnCrash  Risk = "can-corrupt-on-crash"   // a crash (OS or power) can corrupt the database
	Unknown            Risk = "unknown"                // not in pgoltp's catalog: nothing is known about it
)

// Rank orders risk classes; Unknown ranks between Restart and data loss so
// that it is never mistaken for safe yet never gated as unsafe.
func (r Risk) Rank() int {
	switch r {
	case Safe:
		return 0
	case Restart:
		return 1
	case Unknown:
		return 2
	case CanLoseDataOnCrash:
		return 3
	case CanCorruptOnCrash:
		return 4
	}
	return 2
}

// Unsafe reports whether the class costs durability: such values need an
// explicit --allow-unsafe and are labelled in every output.
func (r Risk) Unsafe() bool { return r == CanLoseDataOnCrash || r == CanCorruptOnCrash }

// Worse returns the riskier of r and o.
func (r Risk) Worse(o Risk) Risk {
	if o.Rank() > r.Rank() {
		return o
	}
	return r
}

// Kind is a setting's value type, as pg_settings.vartype spells it.
type Kind string

// Value types.
const (
	Bool    Kind = "bool"
	Integer Kind = "integer"
	Real    Kind = "real"
	Enum    Kind = "enum"
	String  Kind = "string"
)

// Context says when a new value takes effect, as pg_settings.context spells it.
type Context string

// The contexts pgoltp cares about.
const (
	Internal   Context = "internal"   // read-only, fixed at initdb or compile time
	Postmaster Context = "postmaster" // restart needed
	Sighup     Context = "sighup"     // reload (pg_reload_conf) is enough
	Superuser  Context = "superuser"  // per session by a superuser, or reload
	User       Context = "user"       // per session by anyone, or reload
)

// Range is what a server accepts for one setting: the same shape whether it
// comes from the catalog or from a live server's pg_settings.
type Range struct {
	Kind Kind
	Unit string   // pg_settings.unit: "8kB", "kB", "MB", "B", "ms", "s", "min", or ""
	Min  float64  // in Unit; only for Integer and Real
	Max  float64  // in Unit; only for Integer and Real
	Enum []string // allowed values of an Enum
}

// Setting is the catalog entry of one server setting, for a span of major versions.
type Setting struct {
	Name     string
	Range            // what PostgreSQL accepts
	Context  Context // when a change takes effect
	MinMajor int     // first major version that has it in this form (0: all supported)
	MaxMajor int     // last major version that has it in this form (0: still current)
	About    string  // one line: what it does
	// Risky returns the risk of a particular value when it is worse than the
	// context alone implies (fsync=off), and a one-line reason. nil: no value is risky.
	Risky func(value string) (Risk, string)
}

// NeedsRestart reports whether a change takes effect only after a restart.
func (s Setting) NeedsRestart() bool { return s.Context == Postmaster }

// ReadOnly reports whether the setting cannot be changed on a running cluster.
func (s Setting) ReadOnly() bool { return s.Context == Internal }

// BaseRisk is the risk of changing the setting at all, before looking at the value.
func (s Setting) BaseRisk() Risk {
	if s.NeedsRestart() {
		return Restart
	}
	return Safe
}

// appliesTo reports whether the entry describes the setting on major version major
// (0 means any version).
func (s Setting) appliesTo(major int) bool {
	if major == 0 {
		return true
	}
	return (s.MinMajor == 0 || major >= s.MinMajor) && (s.MaxMajor == 0 || major <= s.MaxMajor)
}

// Lookup returns the catalog entry of name for major version major. With major
// 0 it returns the newest form of the setting. ok is false when the catalog does
// not know the setting on that version.
func Lookup(name string, major int) (Setting, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	var best Setting
	found := false
	for _, s := range known {
		if s.Name != name || !s.appliesTo(major) {
			continue
		}
		if !found || newer(s, best) {
			best, found = s, true
		}
	}
	return best, found
}

func newer(a, b Setting) bool {
	if a.MaxMajor == 0 {
		return true
	}
	return b.MaxMajor != 0 && a.MaxMajor > b.MaxMajor
}

// variants returns every catalog form of name (one per span of versions).
func variants(name string) []Setting {
	name = strings.ToLower(strings.TrimSpace(name))
	var out []Setting
	for _, s := range known {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}
