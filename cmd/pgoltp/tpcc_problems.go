package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pgoltp/pgoltp/internal/field"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// tpccStartProblem names why a run could not start: a bad option or a missing
// load is bad input (exit code 2).
func tpccStartProblem(ctx context.Context, err error) error {
	var se *tpcc.SchemaError
	var p *problem.Problem
	var fe *field.Error
	switch {
	case errors.As(err, &p):
		return p // already says what to do (a group part that is late, ...)
	case errors.Is(err, tpcc.ErrBadOption):
		return problem.BadInput("see 'pgoltp tpcc run --help'", "%s", strings.Replace(err.Error(), tpcc.ErrBadOption.Error()+": ", "", 1))
	case errors.As(err, &fe):
		// An option the server does not allow (--isolation through a
		// pooler): err's text, where the field is named by its flag (fe,
		// inside it, may not be).
		return problem.BadInput("", "%s", err.Error())
	case errors.As(err, &se) && (errors.Is(err, tpcc.ErrNotLoaded) || errors.Is(err, tpcc.ErrNotComplete)):
		return problem.BadInput(fmt.Sprintf("run 'pgoltp tpcc load --schemas %s' first", tpcc.SchemasText(se.Schemas)), "%s", err.Error())
	case errors.Is(err, tpcc.ErrNotLoaded), errors.Is(err, tpcc.ErrNotComplete):
		return problem.BadInput("run 'pgoltp tpcc load' first, or pass the --schema that holds it", "%s", err.Error())
	case ctx.Err() != nil:
		return problem.Failed("interrupted before the run started")
	}
	return problem.Wrap(err, "check --dsn and that the database was loaded with 'pgoltp tpcc load'", "cannot start the run")
}

// tpccLoadProblem names why a load failed: an existing or busy load is bad input
// (exit code 2), an interrupted one is marked incomplete; nil stays nil.
func tpccLoadProblem(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, tpcc.ErrLoadExists):
		return problem.BadInput("pass --force to drop and reload, or --schema to load elsewhere", "%s",
			strings.Replace(err.Error(), tpcc.ErrLoadExists.Error()+": ", "", 1))
	case errors.Is(err, tpcc.ErrPartLoaded):
		return problem.BadInput("", "%s", err.Error()) // the message says what to do
	case errors.Is(err, tpcc.ErrLoadBusy):
		return problem.BadInput("wait for it to finish, or use another --schema", "%s", err.Error())
	case ctx.Err() != nil:
		return problem.Failed("load interrupted; the schema is marked incomplete and the next 'pgoltp tpcc load' of the same warehouses resumes it")
	}
	return fmt.Errorf("tpcc load: %w", err)
}

// tpccCheckProblem names why a check could not run: a missing load is bad input
// (exit code 2); nil stays nil.
func tpccCheckProblem(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, tpcc.ErrNotLoaded):
		return problem.BadInput("run 'pgoltp tpcc load' first, or pass the --schema that holds it", "%s", err.Error())
	}
	return fmt.Errorf("tpcc check: %w", err)
}
