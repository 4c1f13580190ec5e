// Package registry is the one list of pgoltp's workloads: the only package
// that imports them all. Commands, plans, searches and version studies take
// a workload by name from here and enumerate these entries for their flags
// and messages; everything else sees only internal/workload.
package registry

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/ledger"
	"github.com/pgoltp/pgoltp/internal/workload/script"
	"github.com/pgoltp/pgoltp/internal/workload/tpcb"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// Use is what pgoltp can do with a registered workload.
type Use uint8

// The uses of a workload; the first entry that offers a use is its default.
const (
	Experiment Use = 1 << iota // experiment plans drive it (Prepare, Run)
	Search                     // pgoltp tune searches settings on it
	Versions                   // compare-versions runs it on several majors
	Advise                     // pgoltp advise has a profile for it (HotRows)
)

// Spec is what every workload is built from.
type Spec struct {
	Scale   int // its size (Entry.ScaleFlag says what it counts)
	Clients int // concurrent connections
	// Duration of each run of a version study (experiments and searches give
	// Run their own).
	Duration time.Duration
	Progress io.Writer // a version study's load progress; nil: quiet
	// Script are the script workload's options (its Scale and Clients are
	// the two above).
	Script script.Options
}

// Entry is one registered workload.
type Entry struct {
	Kind  string // the name commands, plans and reports use
	Title string // what it is, for help texts: "TPC-C"
	// ScaleFlag is what its scale counts, as the flags name it.
	ScaleFlag string
	Scale     int    // the scale a search uses when given none
	Figure    string // its primary figure, a search's default objective: "tps" or "tpmc"
	Uses      Use
	// HotRows: every transaction updates the same few rows of tiny tables
	// (TPC-B's branches and tellers); the advisor vacuums more often.
	HotRows bool
	// New builds it as experiments and searches drive it.
	New func(Spec) workload.Workload
	// Bench builds it as a version study runs it (nil without Versions).
	Bench func(Spec) Bench
}

// entries are the workloads, one line each.
var entries = []Entry{
	{Kind: "ledger", Title: "ledger", ScaleFlag: "scale", Uses: Experiment, New: func(s Spec) workload.Workload {
		return ledger.Ledger{Clients: s.Clients, Accounts: 10000 * s.Scale}
	}},
	{Kind: "tpcb", Title: "TPC-B", ScaleFlag: "scale", Scale: 10, Figure: "tps", Uses: Experiment | Search | Versions | Advise, HotRows: true,
		New: func(s Spec) workload.Workload { return tpcb.NewWorkload(s.Scale, s.Clients) }, Bench: tpcbBench},
	{Kind: "tpcc", Title: "TPC-C", ScaleFlag: "warehouses", Scale: 2, Figure: "tpmc", Uses: Experiment | Search | Versions | Advise,
		New: func(s Spec) workload.Workload { return tpcc.NewWorkload(s.Scale, s.Clients) }, Bench: tpccBench},
	{Kind: "script", Title: "pgbench scripts", ScaleFlag: "scale", Scale: 1, Figure: "tps", Uses: Experiment | Search | Versions,
		New: func(s Spec) workload.Workload { return newScript(s) }, Bench: scriptBench},
}

// newScript is the script workload of s: its scripts, its scale and clients.
func newScript(s Spec) *script.Workload {
	o := s.Script
	o.Scale, o.Clients = s.Scale, s.Clients
	if s.Duration > 0 {
		o.Duration = s.Duration
	}
	w := script.New(o)
	w.Output = s.Progress
	return w
}

// For lists the entries that offer use, in the registry's order.
func For(use Use) []Entry {
	var out []Entry
	for _, e := range entries {
		if e.Uses&use != 0 {
			out = append(out, e)
		}
	}
	return out
}

// KindsFor lists the names of the entries that offer use; the first is the
// default.
func KindsFor(use Use) []string {
	var out []string
	for _, e := range For(use) {
		out = append(out, e.Kind)
	}
	return out
}

// Kinds lists the registered workloads' names.
func Kinds() []string { return KindsFor(^Use(0)) }

// Lookup finds the entry of kind.
func Lookup(kind string) (Entry, error) {
	for _, e := range entries {
		if e.Kind == kind {
			return e, nil
		}
	}
	return Entry{}, fmt.Errorf("no workload %q: use one of %s", kind, strings.Join(Kinds(), ", "))
}

// New builds the workload kind at scale with clients connections, as
// experiments and searches drive it.
func New(kind string, scale, clients int) (workload.Workload, error) {
	e, err := Lookup(kind)
	if err != nil {
		return nil, err
	}
	return e.New(Spec{Scale: scale, Clients: clients}), nil
}

// Build builds the workload kind of s, as experiments and searches drive
// it.
func Build(kind string, s Spec) (workload.Workload, error) {
	e, err := Lookup(kind)
	if err != nil {
		return nil, err
	}
	return e.New(s), nil
}

// Or joins names as help texts list them: "a, b or c".
func Or(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
