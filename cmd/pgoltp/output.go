package main

import (
	"io"
	"os"
	"strings"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/secret"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// writeJSON is every command's --json output: indented, one value.
func writeJSON(w io.Writer, v any) error {
	return secret.WriteJSON(w, v)
}

// recordOptions says where recorded runs go (--lab, --results-dsn); with
// record false the run is only run and checked.
func recordOptions(record bool) recorder.Options {
	o := recorder.Options{Lab: global.lab, ResultsDSN: resultsStore.dsn, NoRecord: !record}
	if !global.json {
		o.Log = os.Stderr
	}
	return o
}

// checkVerdict turns a failed consistency check after a run into exit code 1.
func checkVerdict(kind string, c *workload.Check) error {
	if c == nil || c.Passed {
		return nil
	}
	return problem.Failed("the database is inconsistent after the run: %s failed; run 'pgoltp %s check' for the violating rows",
		strings.Join(c.Failed, ", "), kind)
}

// emit is a command's result: v as JSON with --json, else text's output.
func emit(w io.Writer, v any, text func(io.Writer) error) error {
	if global.json {
		return writeJSON(w, v)
	}
	return text(w)
}
