package tpcb

import "github.com/pgoltp/pgoltp/internal/problem"

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
