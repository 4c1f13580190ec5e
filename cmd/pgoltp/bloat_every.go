package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// DefaultBloatEvery is --bloat-every for planned runs of an hour or more:
// pgstattuple_approx every 15 minutes (under the collectors' time budget)
// gives a week 672 readings per table.
const DefaultBloatEvery = 15 * time.Minute

// addBloatEveryFlag declares --bloat-every on a run command.
func addBloatEveryFlag(f *pflag.FlagSet, dst *time.Duration) {
	f.DurationVar(dst, "bloat-every", 0, "estimate bloat with pgstattuple_approx this often during a recorded run (default 15m for runs planned to last 1h or more, else never; 0 = never)")
}

// resolveBloatEvery is --bloat-every's value: as given when set, else the
// default for a run planned to last planned (0: unknown length).
func resolveBloatEvery(set bool, value, planned time.Duration) (time.Duration, error) {
	if value < 0 {
		return 0, problem.BadInput("pass --bloat-every 15m, or 0 for never", "--bloat-every %s is negative", value)
	}
	if set {
		return value, nil
	}
	if planned >= time.Hour {
		return DefaultBloatEvery, nil
	}
	return 0, nil
}
