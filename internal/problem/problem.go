// Package problem holds the errors pgoltp shows to a person: one line that names
// what is wrong and how to fix it, with the process exit code that goes with it.
//
// Code deep in the tool returns ordinary wrapped errors; the edges (flag parsing,
// config validation, connecting) turn them into a *Problem. The CLI prints a
// *Problem as "pgoltp: <what>; <fix>" and exits with its code; any other error is
// printed on one line and exits 1.
package problem

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pgoltp/pgoltp/internal/field"
)

// Exit codes used by every command.
const (
	ExitFailed   = 1 // the work ran but found something wrong (a failed check, a failed run)
	ExitBadInput = 2 // bad flags, files, DSNs, settings, missing binaries, unreachable servers
)

// Problem is a user-facing error: what went wrong and what to do about it.
type Problem struct {
	What string // "unknown flag --foo", "cannot reach 127.0.0.1:5432"
	Fix  string // "run 'pgoltp --help'", "start the server or check --dsn"
	Code int
	Err  error // the underlying cause, if any; never printed with secrets
}

func (p *Problem) Error() string {
	if p.Fix == "" {
		return p.What
	}
	return p.What + "; " + p.Fix
}

func (p *Problem) Unwrap() error { return p.Err }

// BadInput returns a Problem with exit code 2.
func BadInput(fix, format string, args ...any) *Problem {
	return &Problem{What: fmt.Sprintf(format, args...), Fix: fix, Code: ExitBadInput}
}

// Wrap returns a bad-input Problem that keeps err as its cause and appends its text.
func Wrap(err error, fix, format string, args ...any) *Problem {
	what := fmt.Sprintf(format, args...)
	if err != nil {
		what += ": " + err.Error()
	}
	return &Problem{What: what, Fix: fix, Code: ExitBadInput, Err: err}
}

// Failed returns a Problem with exit code 1: the input was fine but the result is not.
func Failed(format string, args ...any) *Problem {
	return &Problem{What: fmt.Sprintf(format, args...), Code: ExitFailed}
}

// ExitCode returns the exit code for err: a Problem's own code, else 1.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var p *Problem
	if errors.As(err, &p) && p.Code != 0 {
		return p.Code
	}
	var f *field.Error
	if errors.As(err, &f) {
		return ExitBadInput
	}
	return ExitFailed
}

// OneLine folds a multi-line message into one line.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Print writes err as the one line pgoltp promises, "pgoltp: ...", and with
// causes the chain of causes behind it (for a bug report); it returns the
// exit code that goes with err.
func Print(w io.Writer, err error, causes bool) int {
	fmt.Fprintln(w, "pgoltp: "+OneLine(err.Error()))
	for cause := errors.Unwrap(err); causes && cause != nil; cause = errors.Unwrap(cause) {
		fmt.Fprintf(w, "  caused by (%T): %s\n", cause, OneLine(cause.Error()))
	}
	return ExitCode(err)
}

// Usage turns a command-line parser's own usage errors (unknown command or
// flag, wrong argument count) into bad input; other errors pass through.
func Usage(err error) error {
	var p *Problem
	if errors.As(err, &p) {
		return err
	}
	msg := err.Error()
	for _, prefix := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires ", "invalid argument"} {
		if strings.HasPrefix(msg, prefix) {
			return BadInput("run 'pgoltp --help' for the commands and flags", "%s", msg)
		}
	}
	return err
}
