package lang

import (
	"fmt"
	"strings"
)

// SyntaxError is a script error as pgbench's syntax_error prints it: a first
// line "file:line: message (more) in command \"cmd\"", then, when the
// command's text is known, that text and a caret under the offending
// column. Print it after "pgbench: error: ".
type SyntaxError struct {
	File    string
	Line    int
	Msg     string
	More    string // shown in parentheses when HasMore
	HasMore bool
	Command string // shown as in command "..." when not empty
	Text    string // the command's text, shown when HasText
	HasText bool
	Column  int // 0-based column of the error in Text; -1 when unknown
}

func (e *SyntaxError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: %s", e.File, e.Line, e.Msg)
	if e.HasMore {
		fmt.Fprintf(&b, " (%s)", e.More)
	}
	if e.Column >= 0 && !e.HasText {
		fmt.Fprintf(&b, " at column %d", e.Column+1)
	}
	if e.Command != "" {
		fmt.Fprintf(&b, " in command \"%s\"", e.Command)
	}
	if e.HasText {
		b.WriteString("\n" + e.Text)
		if e.Column >= 0 {
			b.WriteString("\n" + strings.Repeat(" ", e.Column) + "^ error found here")
		}
	}
	return b.String()
}

// ScriptError is an error about a whole script (its \if structure, or an
// empty script), printed after "pgbench: error: ".
type ScriptError struct{ Msg string }

func (e *ScriptError) Error() string { return e.Msg }

// EvalError is an error while evaluating an expression, with pgbench's text
// (empty when pgbench prints nothing of its own).
type EvalError struct{ Msg string }

func (e *EvalError) Error() string { return e.Msg }

func evalErr(format string, args ...any) error {
	return &EvalError{Msg: fmt.Sprintf(format, args...)}
}
