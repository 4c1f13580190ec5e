package collect

import (
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// DefaultBloatEvery is --bloat-every for planned runs of an hour or more:
// pgstattuple_approx every 15 minutes (under the collectors' time budget)
// gives a week 672 readings per table.
const DefaultBloatEvery = 15 * time.Minute

// ResolveBloatEvery is --bloat-every's value (Options.BloatEvery): as given
// when set, else the default for a run planned to last planned (0: unknown
// length).
func ResolveBloatEvery(set bool, value, planned time.Duration) (time.Duration, error) {
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
