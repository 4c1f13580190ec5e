package main

import (
	"errors"
	"fmt"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/workload/tpcb"
)

// tpcbProblem is how a tpcb command (what: "tpcb run") ends on err: tables that
// are not loaded are bad input (exit 2), anything else is wrapped.
func tpcbProblem(what string, err error) error {
	if errors.Is(err, tpcb.ErrIncompleteLoad) {
		return problem.BadInput("", "%s: %s", what, tpcb.ErrIncompleteLoad) // the error names the fix
	}
	if errors.Is(err, tpcb.ErrNotLoaded) {
		return problem.BadInput("run 'pgoltp tpcb load --scale N' (or pgbench -i) first", "%s: the pgbench tables are not loaded", what)
	}
	return fmt.Errorf("%s: %w", what, err)
}
