package script

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/field"
	"github.com/pgoltp/pgoltp/internal/pgbench"
	"github.com/pgoltp/pgoltp/internal/pgbench/lang"
)

// How Prepare makes the database ready (Options.Init).
const (
	InitPgbench = "pgbench" // pgbench -i -s Scale: pgbench's tables, reloaded by Prepare
	InitNone    = "none"    // the user's schema is there already: Prepare loads nothing
)

// Options are a script run's pgbench options, as a plan, a search or a
// study sets them.
type Options struct {
	Files    []string // -f path[@weight]
	Builtins []string // -b name[@weight]; neither: pgbench's tpcb-like
	Defines  []string // -D name=value
	Protocol string   // -M: simple (the default), extended or prepared
	Clients  int      // -c (default 4)
	Jobs     int      // -j (default 1)
	Rate     float64  // -R transactions per second; 0: as fast as it goes
	Scale    int      // pgbench -i -s, and :scale of the custom scripts (default 1)
	Init     string   // InitPgbench (the default) or InitNone
	Duration time.Duration
}

// Validate fills in the defaults and checks every option; a script that
// cannot be read or does not parse is an error on Files or Builtins naming
// its file, line and column.
func (o *Options) Validate() error {
	o.defaults()
	if err := o.checkNumbers(); err != nil {
		return err
	}
	switch {
	case o.Init != InitPgbench && o.Init != InitNone:
		return field.Bad("Init", o.Init, "is not a way to prepare the database", InitPgbench+" (pgbench -i) or "+InitNone+" (the schema is yours)")
	case !validProtocol(o.Protocol):
		return field.Bad("Protocol", o.Protocol, "is not a query protocol", strings.Join(pgbench.QueryModes, ", "))
	}
	for _, d := range o.Defines {
		if name, _, ok := strings.Cut(d, "="); !ok || name == "" {
			return field.Bad("Defines", d, "is not a variable definition", "name=value")
		}
	}
	for _, f := range o.Files {
		if err := checkScript("Files", "-f", f); err != nil {
			return err
		}
	}
	for _, b := range o.Builtins {
		if err := checkScript("Builtins", "-b", b); err != nil {
			return err
		}
	}
	return nil
}

func (o *Options) defaults() {
	if o.Protocol == "" {
		o.Protocol = "simple"
	}
	if o.Clients == 0 {
		o.Clients = 4
	}
	if o.Jobs == 0 {
		o.Jobs = 1
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.Init == "" {
		o.Init = InitPgbench
	}
	if o.Duration == 0 {
		o.Duration = time.Minute
	}
}

func (o *Options) checkNumbers() error {
	switch {
	case o.Clients < 1:
		return field.Bad("Clients", strconv.Itoa(o.Clients), "is too few", "1 or more")
	case o.Jobs < 1 || o.Jobs > o.Clients:
		return field.Bad("Jobs", strconv.Itoa(o.Jobs), "is not a number of threads for "+strconv.Itoa(o.Clients)+" clients", "1 to the number of clients")
	case o.Rate < 0:
		return field.Bad("Rate", fmt.Sprint(o.Rate), "is negative", "0 (as fast as it goes) or a rate in transactions per second")
	case o.Scale < 1:
		return field.Bad("Scale", strconv.Itoa(o.Scale), "is too small", "1 or more")
	case o.Duration < time.Second:
		return field.Bad("Duration", o.Duration.String(), "is too short", "1s or more")
	}
	return nil
}

func validProtocol(p string) bool {
	for _, m := range pgbench.QueryModes {
		if p == m {
			return true
		}
	}
	return false
}

// checkScript reads one -f or -b value as pgbench does (the file, the
// built-in's prefix, the weight) and parses its script.
func checkScript(name, option, value string) error {
	var stderr bytes.Buffer
	env := pgbench.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &stderr, Getenv: func(string) string { return "" }}
	o, err := pgbench.Parse([]string{option, value}, env)
	if err != nil {
		return field.Bad(name, value, "cannot be used: "+firstError(stderr.String()), "")
	}
	for _, s := range o.Scripts {
		if _, err := lang.ParseScript(s.Desc, s.Text); err != nil {
			return field.Bad(name, value, "does not parse: "+oneLine(err), "")
		}
	}
	return nil
}

// firstError is pgbench's first error message without its "pgbench:
// error: " (else its first line).
func firstError(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for _, l := range lines {
		if i := strings.Index(l, "error: "); i >= 0 {
			return l[i+len("error: "):]
		}
	}
	if lines[0] == "" {
		return "pgbench refused it"
	}
	return lines[0]
}

// oneLine words a script's parse error on one line: file:line:column:
// message, where pgbench puts the command and a caret under the column on
// lines of their own.
func oneLine(err error) string {
	var se *lang.SyntaxError
	if !errors.As(err, &se) {
		return strings.ReplaceAll(err.Error(), "\n", " ")
	}
	msg := se.Msg
	if se.HasMore {
		msg += " (" + se.More + ")"
	}
	if se.Command != "" {
		msg += fmt.Sprintf(" in command %q", se.Command)
	}
	if se.Column < 0 {
		return fmt.Sprintf("%s:%d: %s", se.File, se.Line, msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", se.File, se.Line, se.Column+1, msg)
}
