package tpcc

import (
	"slices"
	"strings"

	"github.com/pgoltp/pgoltp/internal/field"
	"github.com/pgoltp/pgoltp/internal/problem"
)

// Validate checks the options of a check as given: fresh is auto, yes or
// no, every name in Only must be a check, and at least one worker. Its
// errors are field errors (field.Error) that name their fix.
func (o *CheckOptions) Validate(fresh string) error {
	switch fresh {
	case "auto":
		o.Fresh = FreshAuto
	case "yes":
		o.Fresh = FreshYes
	case "no":
		o.Fresh = FreshNo
	default:
		return field.New("Fresh", fresh, "unknown {} value %q", fresh).Fix("use {} auto, yes or no")
	}
	for _, n := range o.Only {
		if !slices.Contains(CheckNames(), n) {
			return field.New("Only", n, "unknown check %q in {}", n).Fix("choose from: %s", strings.Join(CheckNames(), ", "))
		}
	}
	if o.Workers < 1 {
		return field.New("Workers", o.Workers, "{} must be at least 1, got %d", o.Workers).Fix("pass {} 1 or more")
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
