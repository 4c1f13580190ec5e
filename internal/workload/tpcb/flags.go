package tpcb

import (
	"fmt"
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// Flags are the pgbench-style flags of `pgoltp tpcb run` that are not
// RunOptions fields as given: script switches, pgbench's duration forms,
// seconds of progress and max-tries where 0 means unlimited.
type Flags struct {
	Protocol, Builtin      string
	SkipSome, SelectOnly   bool   // -N, -S
	Duration, LatencyLimit string // seconds / milliseconds, or Go durations
	Progress               int    // seconds
	MaxTries               int    // 0: unlimited
}

// Apply reads the flags into o; a bad one is a bad-input problem.
func (f Flags) Apply(o *RunOptions) error {
	bad := func(err error) error {
		return problem.BadInput("run 'pgoltp tpcb run --help' for the flags", "%s", err)
	}
	o.Protocol = Protocol(f.Protocol)
	o.Script = Script(f.Builtin)
	switch {
	case f.SkipSome && f.SelectOnly:
		return bad(fmt.Errorf("--skip-some-updates and --select-only exclude each other"))
	case f.SkipSome:
		o.Script = ScriptSimpleUpdate
	case f.SelectOnly:
		o.Script = ScriptSelectOnly
	}
	var err error
	if o.Duration, err = ParseDuration(f.Duration, time.Second); err != nil {
		return bad(fmt.Errorf("invalid --duration %q: give seconds (60) or a duration (90m, 24h)", f.Duration))
	}
	if o.LatencyLimit, err = ParseDuration(f.LatencyLimit, time.Millisecond); err != nil {
		return bad(fmt.Errorf("invalid --latency-limit %q: give milliseconds (50) or a duration (50ms)", f.LatencyLimit))
	}
	o.Progress = time.Duration(f.Progress) * time.Second
	if f.MaxTries < 0 {
		return bad(fmt.Errorf("invalid --max-tries %d: 0 (unlimited) or more", f.MaxTries))
	}
	o.MaxTries = f.MaxTries
	if f.MaxTries == 0 {
		o.MaxTries = -1
	}
	if err := o.Validate(); err != nil {
		return bad(err)
	}
	return nil
}

// Verdict turns aborted clients, a failed check and an interruption into
// a failure (exit code 1).
func (res *RunResult) Verdict() error {
	if res.Check != nil && !res.Check.OK {
		f := res.Check.Failures()[0]
		return problem.Failed("tpcb check failed after the run: %s (%s)", f.Name, f.Detail)
	}
	if res.AbortedClients > 0 {
		return problem.Failed("%d of %d clients aborted; first: %s", res.AbortedClients, res.Options.Clients, res.Errors[0])
	}
	if res.Interrupted {
		return problem.Failed("run interrupted")
	}
	return nil
}

// Verdict is a failure naming the first failed condition, if any.
func (r *CheckResult) Verdict() error {
	if r.OK {
		return nil
	}
	f := r.Failures()[0]
	hint := ""
	if f.Name == "accounts = history" || f.Name == "tellers = history" {
		hint = "; note that a pgbench run without -n truncates pgbench_history, after which these sums cannot match"
	}
	return problem.Failed("tpcb check failed: %s (%s)%s", f.Name, f.Detail, hint)
}
