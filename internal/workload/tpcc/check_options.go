package tpcc

import (
	"slices"
	"strings"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// Validate checks the options of `pgoltp tpcc check` as given: fresh is
// --fresh (auto, yes or no), every --only name must be a check, and at
// least one worker.
func (o *CheckOptions) Validate(fresh string) error {
	switch fresh {
	case "auto":
		o.Fresh = FreshAuto
	case "yes":
		o.Fresh = FreshYes
	case "no":
		o.Fresh = FreshNo
	default:
		return problem.BadInput("use --fresh auto, yes or no", "unknown --fresh value %q", fresh)
	}
	for _, n := range o.Only {
		if !slices.Contains(CheckNames(), n) {
			return problem.BadInput("choose from: "+strings.Join(CheckNames(), ", "), "unknown check %q in --only", n)
		}
	}
	if o.Workers < 1 {
		return problem.BadInput("pass --workers 1 or more", "--workers must be at least 1, got %d", o.Workers)
	}
	return nil
}

// Verdict is a failure naming the failed checks, if any (exit code 1).
func (rep CheckReport) Verdict() error {
	failed := rep.Failed()
	if len(failed) == 0 {
		return nil
	}
	names := make([]string, len(failed))
	for i, f := range failed {
		names[i] = f.Name
	}
	return problem.Failed("%d of %d checks failed: %s", len(failed), len(rep.Results), strings.Join(names, ", "))
}
