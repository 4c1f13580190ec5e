package pgbench

import (
	"context"
	"os/exec"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgbench/lang"
)

// runScript runs script si's commands once; on a failure it returns the
// outcome and the index of the command that failed.
func (c *client) runScript(ctx context.Context, si int) (outcome, int) {
	cmds := c.e.scripts[si].Commands
	perCommand := c.e.o.ReportPerCommand
	timed := perCommand || c.sink != nil
	var t0 time.Time
	for i := 0; i < len(cmds); {
		c.command = i
		if timed {
			t0 = time.Now()
		}
		next, out := c.execute(ctx, si, i, cmds[i])
		if timed && out == succeeded {
			c.measured(si, i, time.Since(t0))
		}
		if out != succeeded {
			return out, i
		}
		i = next
	}
	if c.pipeline {
		c.e.printf("%s: error: client %d aborted: end of script reached with pipeline open\n", progName, c.id)
		return aborted, len(cmds) - 1
	}
	return succeeded, 0
}

// measured accounts command i's latency d: -r's, and the sink's for SQL.
func (c *client) measured(si, i int, d time.Duration) {
	if c.e.o.ReportPerCommand {
		c.mu.Lock()
		c.scripts[si].Commands[i].Latency.Add(d.Seconds())
		c.mu.Unlock()
	}
	if c.sink != nil && c.e.scripts[si].Commands[i].IsSQL() {
		c.sink.Statement(c.e.cmds[si][i].n, d)
	}
}

// execute runs command i and returns the index of the next one.
func (c *client) execute(ctx context.Context, si, i int, cmd *lang.Command) (int, outcome) {
	cmds := c.e.scripts[si].Commands
	if c.e.o.Debug && !cmd.IsSQL() {
		c.e.debugf("client %d executing \\%s", c.id, strings.Join(cmd.Argv, " "))
	}
	switch cmd.Meta {
	case lang.MetaNone:
		return i + 1, c.sql(ctx, si, i, cmd)
	case lang.MetaSet:
		v, err := lang.Eval(cmd.Expr, c)
		if err != nil {
			return i, c.failed(err, cmd.Argv[0], "evaluation of meta-command failed")
		}
		if err := c.set(c.e.cmds[si][i].ref, cmd, v); err != nil {
			return i, c.failed(err, "set", "assignment of meta-command failed")
		}
	case lang.MetaIf:
		ok, out := c.condition(cmd)
		if out != succeeded || ok {
			return i + 1, out
		}
		return c.jump(cmds, cmd.Jump)
	case lang.MetaElif, lang.MetaElse: // a branch that ran reached the next one
		return cmd.Endif + 1, succeeded
	case lang.MetaSleep:
		usec, err := cmd.SleepMicros(c.vars.Text)
		if err != nil {
			return i, c.failed(err, "sleep", "execution of meta-command failed")
		}
		if usec > 0 && c.sleepUntil(c.e.nowUs()+int64(usec), false) != nil {
			return i, aborted
		}
	case lang.MetaShell, lang.MetaSetShell:
		return i + 1, c.shell(ctx, cmd)
	case lang.MetaStartPipeline, lang.MetaSyncPipeline, lang.MetaEndPipeline:
		return i + 1, c.pipelineCommand(ctx, si, i, cmd)
	}
	return i + 1, succeeded
}

// jump goes where a false condition sends it: the next \elif (evaluated
// there), past the \else, or past the \endif.
func (c *client) jump(cmds []*lang.Command, to int) (int, outcome) {
	for {
		target := cmds[to]
		if target.Meta != lang.MetaElif {
			return to + 1, succeeded
		}
		c.command = to
		ok, out := c.condition(target)
		if out != succeeded || ok {
			return to + 1, out
		}
		to = target.Jump
	}
}

func (c *client) condition(cmd *lang.Command) (bool, outcome) {
	v, err := lang.Eval(cmd.Expr, c)
	if err != nil {
		return false, c.failed(err, cmd.Argv[0], "evaluation of meta-command failed")
	}
	return v.Truth(), succeeded
}

// failed reports a meta-command's error as pgbench's commandFailed: the
// error, then the abort.
func (c *client) failed(err error, name, what string) outcome {
	if err != nil {
		c.e.printf("%s: error: %v\n", progName, err)
	}
	c.e.printf("%s: error: client %d aborted in command %d (%s) of script %d; %s\n", progName, c.id, c.command, name, c.script, what)
	return aborted
}

// shell runs \shell or \setshell through /bin/sh as pgbench's
// runShellCommand (system() and popen()).
func (c *client) shell(ctx context.Context, cmd *lang.Command) outcome {
	name := "shell"
	if cmd.Meta == lang.MetaSetShell {
		name = "setshell"
	}
	line, err := cmd.ShellCommand(c.vars.Text)
	if err != nil {
		return c.failed(err, name, "execution of meta-command failed")
	}
	sh := exec.CommandContext(ctx, "/bin/sh", "-c", line)
	sh.Stderr = c.e.env.Stderr
	words := cmd.Argv[1:]
	if cmd.Meta == lang.MetaShell {
		sh.Stdout = c.e.env.Stdout
		if sh.Run() != nil {
			c.e.printf("%s: error: %s: could not launch shell command\n", progName, words[0])
			return c.failed(nil, name, "execution of meta-command failed")
		}
		return succeeded
	}
	out, runErr := sh.Output()
	v, err := cmd.ShellResult(string(out))
	if err == nil && runErr != nil {
		c.e.printf("%s: error: %s: could not close shell command\n", progName, words[1])
		return c.failed(nil, name, "execution of meta-command failed")
	}
	if err == nil {
		err = c.vars.Set("setshell", words[0], lang.IntValue(v))
	}
	if err != nil {
		return c.failed(err, name, "execution of meta-command failed")
	}
	return succeeded
}
