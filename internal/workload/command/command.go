// Package command is a workload that runs another program as it is (the
// real pgbench, HammerDB, sysbench, a script) while pgoltp records around it:
// `pgoltp record -- CMD ...`. For pgbench it also reads the per-transaction
// logs into the series and per-script histograms a run of pgoltp's own
// has, so report, compare and the statistics treat the two alike.
package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/pgoltp/pgoltp/internal/secret"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Command is one program to run and record.
type Command struct {
	Argv  []string // the program and its arguments, run as given
	Title string   // "" = the command line
	// Env is added to the program's environment (where the lab's server is).
	Env            []string
	Stdout, Stderr io.Writer // where its output goes as it runs (and is kept)
	// LogDir is where pgoltp has pgbench write its logs when the command
	// line asks for none; pgoltp removes the logs it asked for.
	LogDir string
	gate   func(context.Context) error
}

// SetStartGate implements workload.Gated: a part of a group starts the
// program at the group's agreed start (the program then connects, so the
// parts' clocks differ by their connection times).
func (c *Command) SetStartGate(gate func(context.Context) error) { c.gate = gate }

// ExitError is a program that exited with a code other than 0: pgoltp
// exits with the same code.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("the command exited with code %d", e.Code) }

// Pgbench says the program is pgbench: the real one, or pgoltp's own
// (`pgoltp pgbench`, which `pgoltp pgbench --record` runs this way).
func (c *Command) Pgbench() bool { return c.pgbenchAt() > 0 }

// pgbenchAt is where pgbench's own arguments start in Argv (0: not pgbench).
func (c *Command) pgbenchAt() int {
	switch {
	case len(c.Argv) > 0 && filepath.Base(c.Argv[0]) == "pgbench":
		return 1
	case len(c.Argv) > 1 && strings.HasPrefix(filepath.Base(c.Argv[0]), "pgoltp") && c.Argv[1] == "pgbench":
		return 2
	}
	return 0
}

// pgbenchArgs are pgbench's own arguments.
func (c *Command) pgbenchArgs() []string { return c.Argv[c.pgbenchAt():] }

// Kind is "pgbench" for pgbench, "command" for anything else.
func (c *Command) Kind() string {
	if c.Pgbench() {
		return "pgbench"
	}
	return "command"
}

// Name is the title, or the command line with any password left out.
func (c *Command) Name() string {
	if c.Title != "" {
		return c.Title
	}
	return c.commandLine()
}

// commandLine is the command line as stored: an argument holding a password
// is redacted.
func (c *Command) commandLine() string {
	out := make([]string, len(c.Argv))
	for i, a := range c.Argv {
		out[i] = secret.Redact("argument", a)
		if strings.ContainsAny(out[i], " \t'\"") {
			out[i] = "'" + strings.ReplaceAll(out[i], "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// Prepare is refused: a recorded command brings its own data.
func (c *Command) Prepare(context.Context, string, workload.Layout) error {
	return errors.New("a recorded command loads nothing: it runs as given")
}

// Unchecked: there is no consistency check to announce.
func (c *Command) Unchecked() bool { return true }

// Check has nothing to check: the program's own output says how it went.
func (c *Command) Check(context.Context, string) (*workload.Check, error) { return nil, nil }

// libpqVars are the environment variables that tell a libpq program where
// to connect.
var libpqVars = []string{"PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE"}

// ConnectsItself says pgbench is told where to connect, by its command line
// (-h, -p, -U, dbname) or by PG* variables; DSN is then that server, for
// the collectors.
func (c *Command) ConnectsItself() bool {
	if !c.Pgbench() {
		return false
	}
	if parsePgbenchArgs(c.pgbenchArgs()).connects() {
		return true
	}
	return EnvNamesServer()
}

// EnvNamesServer says a PG* variable of this process names a server or a
// connection parameter, which libpq (and pgbench) would use.
func EnvNamesServer() bool {
	for _, v := range libpqVars {
		if os.Getenv(v) != "" {
			return true
		}
	}
	return false
}

// DSN is the server pgbench connects to (see ConnectsItself): what its
// command line says, the rest from PG* variables as libpq reads them.
func (c *Command) DSN() string {
	if dsn := parsePgbenchArgs(c.pgbenchArgs()).dsn(); dsn != "" {
		return dsn
	}
	return "connect_timeout=10" // every other parameter from the environment
}

// Run runs the program to its end (ro.Duration is ignored: the command line
// says how long) and returns what it measured. Ctrl-C reaches the program as an
// interrupt, as it would without pgoltp.
func (c *Command) Run(ctx context.Context, _ string, ro workload.RunOptions) (*workload.Result, error) {
	argv, logs, err := c.plan()
	if err != nil {
		return nil, err
	}
	var stdout, stderr tail
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), c.Env...)
	cmd.Stdin = os.Stdin
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = 30 * time.Second
	if c.gate != nil {
		if err := c.gate(ctx); err != nil {
			return nil, err
		}
	}
	started := time.Now()
	wait, err := startInOrder(cmd, io.MultiWriter(orDiscard(c.Stdout), &stdout), io.MultiWriter(orDiscard(c.Stderr), &stderr))
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	runErr := wait()
	res := &workload.Result{End: time.Now(), Interrupted: ctx.Err() != nil}
	res.Params = append(res.Params, workload.Param{Name: "command", Value: c.commandLine()})
	if logs != nil {
		logs.pid = cmd.Process.Pid
		c.measurePgbench(ro.OnInterval, res, logs, stdout.String())
	} else {
		res.Elapsed = res.End.Sub(started)
	}
	var exit *exec.ExitError
	if logs == nil || runErr != nil {
		// pgbench's summary is in the run's parameters and figures already;
		// another program's output, or a failed one's, is kept as it is.
		res.Notes = append(res.Notes, outputNotes(stdout.String(), stderr.String())...)
	}
	if errors.As(runErr, &exit) && !res.Interrupted {
		return res, &ExitError{Code: exit.ExitCode()}
	}
	if runErr != nil && !res.Interrupted {
		return res, runErr
	}
	return res, nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
