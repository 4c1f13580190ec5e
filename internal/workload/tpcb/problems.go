package tpcb

import (
	"errors"
	"fmt"

	"github.com/pgoltp/pgoltp/internal/field"
	"github.com/pgoltp/pgoltp/internal/problem"
)

// Problem is how a tpcb command (what: "tpcb run") ends on err: tables that
// are not loaded are bad input (exit 2), anything else is wrapped.
func Problem(what string, err error) error {
	if errors.Is(err, ErrIncompleteLoad) {
		return problem.BadInput("", "%s: %s", what, ErrIncompleteLoad) // the error names the fix
	}
	if errors.Is(err, ErrNotLoaded) {
		return problem.BadInput("run 'pgoltp tpcb load --scale N' (or pgbench -i) first", "%s: the pgbench tables are not loaded", what)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Validate checks the options of 'tpcb check'.
func (o CheckOptions) Validate() error {
	if o.ExpectHistory < -1 {
		return field.New("ExpectHistory", o.ExpectHistory, "invalid {} %d", o.ExpectHistory).Fix("give the number of committed transactions, or leave it out")
	}
	return nil
}
