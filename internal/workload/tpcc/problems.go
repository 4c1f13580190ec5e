package tpcc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// StartProblem names why a run could not start: a bad option or a missing
// load is bad input (exit code 2).
func StartProblem(ctx context.Context, err error) error {
	var se *SchemaError
	var p *problem.Problem
	switch {
	case errors.As(err, &p):
		return p // already says what to do (a group part that is late, ...)
	case errors.Is(err, ErrBadOption):
		return problem.BadInput("see 'pgoltp tpcc run --help'", "%s", strings.Replace(err.Error(), ErrBadOption.Error()+": ", "", 1))
	case errors.As(err, &se) && (errors.Is(err, ErrNotLoaded) || errors.Is(err, ErrNotComplete)):
		return problem.BadInput(fmt.Sprintf("run 'pgoltp tpcc load --schemas %s' first", schemasFlag(se.Schemas)), "%s", err.Error())
	case errors.Is(err, ErrNotLoaded), errors.Is(err, ErrNotComplete):
		return problem.BadInput("run 'pgoltp tpcc load' first, or pass the --schema that holds it", "%s", err.Error())
	case ctx.Err() != nil:
		return problem.Failed("interrupted before the run started")
	}
	return problem.Wrap(err, "check --dsn and that the database was loaded with 'pgoltp tpcc load'", "cannot start the run")
}

// CheckReportOf is the TPC-C report behind a check (nil: not checked).
func CheckReportOf(c *workload.Check) *CheckReport {
	if c == nil {
		return nil
	}
	return c.Detail.(*CheckReport)
}

// WriteWithCheck prints the run's summary and the check after it, if any.
func (r *RunResult) WriteWithCheck(w io.Writer, rep *CheckReport) error {
	if err := r.WriteSummary(w); err != nil {
		return err
	}
	if rep != nil {
		return rep.WriteText(w)
	}
	return nil
}

// LoadProblem names why a load failed: an existing or busy load is bad input
// (exit code 2), an interrupted one is marked incomplete; nil stays nil.
func LoadProblem(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrLoadExists):
		return problem.BadInput("pass --force to drop and reload, or --schema to load elsewhere", "%s",
			strings.Replace(err.Error(), ErrLoadExists.Error()+": ", "", 1))
	case errors.Is(err, ErrPartLoaded):
		return problem.BadInput("", "%s", err.Error()) // the message says what to do
	case errors.Is(err, ErrLoadBusy):
		return problem.BadInput("wait for it to finish, or use another --schema", "%s", err.Error())
	case ctx.Err() != nil:
		return problem.Failed("load interrupted; the schema is marked incomplete and the next 'pgoltp tpcc load' rebuilds it")
	}
	return fmt.Errorf("tpcc load: %w", err)
}

// CheckProblem names why a check could not run: a missing load is bad input
// (exit code 2); nil stays nil.
func CheckProblem(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNotLoaded):
		return problem.BadInput("run 'pgoltp tpcc load' first, or pass the --schema that holds it", "%s", err.Error())
	}
	return fmt.Errorf("tpcc check: %w", err)
}
