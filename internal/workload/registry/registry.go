// Package registry is the one list of pgoltp's workloads: the only package
// that imports them all. Commands that take a workload by name (experiment
// plans) build it here; everything else sees only internal/workload.
package registry

import (
	"fmt"
	"strings"

	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/ledger"
	"github.com/pgoltp/pgoltp/internal/workload/tpcb"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// Entry is one registered workload.
type Entry struct {
	Kind string // the name plans and reports use
	// New builds it at scale with clients connections, as experiments drive it.
	New func(scale, clients int) workload.Workload
}

// entries are the workloads, one line each.
var entries = []Entry{
	{"ledger", func(scale, clients int) workload.Workload {
		return ledger.Ledger{Clients: clients, Accounts: 10000 * scale}
	}},
	{"tpcb", func(scale, clients int) workload.Workload { return tpcb.NewWorkload(scale, clients) }},
	{"tpcc", func(scale, clients int) workload.Workload { return tpcc.NewWorkload(scale, clients) }},
}

// Kinds lists the registered workloads' names.
func Kinds() []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Kind
	}
	return out
}

// New builds the workload kind at scale with clients connections.
func New(kind string, scale, clients int) (workload.Workload, error) {
	for _, e := range entries {
		if e.Kind == kind {
			return e.New(scale, clients), nil
		}
	}
	return nil, fmt.Errorf("no workload %q: use one of %s", kind, strings.Join(Kinds(), ", "))
}
