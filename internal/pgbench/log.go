package pgbench

import (
	"fmt"
	"io"
)

// progName is what pgbench calls itself in its messages; pgoltp pgbench keeps
// it so scripts that parse pgbench's stderr keep working.
const progName = "pgbench"

// logger writes messages the way PostgreSQL's frontend logging does:
// "pgbench: error: ...", "pgbench: detail: ...", "pgbench: hint: ...", and
// info and debug messages with the program name only.
type logger struct {
	w     io.Writer
	debug bool
}

func (l logger) error(format string, args ...any) { l.print("error: ", format, args...) }
func (l logger) detail(format string, args ...any) {
	l.print("detail: ", format, args...)
}
func (l logger) hint(format string, args ...any) { l.print("hint: ", format, args...) }
func (l logger) info(format string, args ...any) { l.print("", format, args...) }
func (l logger) debugf(format string, args ...any) {
	if l.debug {
		l.print("", format, args...)
	}
}

func (l logger) print(part, format string, args ...any) {
	fmt.Fprintf(l.w, "%s: %s%s\n", progName, part, fmt.Sprintf(format, args...))
}

// tryHelp is the hint pgbench adds after a command-line error.
func (l logger) tryHelp() { l.hint("Try \"%s --help\" for more information.", progName) }

// Exit ends pgoltp pgbench with pgbench's exit code once its messages are
// printed: 0 after -b list or --show-script, 1 for bad options and setup
// failures, 2 for errors during a run.
type Exit struct{ Code int }

func (e *Exit) Error() string { return fmt.Sprintf("pgbench exit status %d", e.Code) }

// fatal is pg_fatal: the error, then exit 1.
func (l logger) fatal(format string, args ...any) error {
	l.error(format, args...)
	return &Exit{Code: 1}
}
