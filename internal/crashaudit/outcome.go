package crashaudit

import (
	"errors"

	"github.com/pgoltp/pgoltp/internal/experiment"
	"github.com/pgoltp/pgoltp/internal/problem"
)

// Failure is the audit's failure (exit code 1) when acknowledged commits
// were lost with durable settings.
func (r *CrashReport) Failure() error {
	if r.Missing > 0 && len(r.Unsafe) == 0 {
		return problem.Failed("%d acknowledged commits lost with durable settings", r.Missing)
	}
	return nil
}

// Outcome is how a durability audit ends for the command, as Report.Verdict.
func (r *CrashReport) Outcome(err error, interrupted bool) error {
	var p *problem.Problem
	switch {
	case r != nil && !r.Restored:
		return problem.Failed("%s; the original settings could NOT be restored: run 'pgoltp restore'", experiment.Stopped("durability audit", err))
	case err == nil:
		return r.Failure()
	case errors.As(err, &p):
		return err
	case interrupted:
		return problem.Failed("durability audit interrupted before its verdict")
	}
	return problem.Failed("durability audit stopped: %v", err)
}
