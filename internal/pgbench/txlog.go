package pgbench

import (
	"strconv"
	"strings"
)

// TxLogEntry is one transaction in a -l log.
type TxLogEntry struct {
	Client      int
	Transaction int64   // the client's transaction number
	LatencyUs   float64 // when it succeeded
	Result      string  // "" on success, else "skipped", "failed", "serialization" or "deadlock"
	Script      int
	EpochUs     int64   // when it ended
	LagUs       float64 // with -R
	Retries     int     // tries - 1, with --max-tries other than 1
}

// TxLogLine is the line pgbench writes for one transaction under -l
// (without the newline).
func TxLogLine(e TxLogEntry, throttled, showRetries bool) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(e.Client) + " " + strconv.FormatInt(e.Transaction, 10) + " ")
	if e.Result == "" {
		b.WriteString(cfmt("%.0f", e.LatencyUs))
	} else {
		b.WriteString(e.Result)
	}
	b.WriteString(cfmt(" %d %d %d", e.Script, e.EpochUs/1000000, e.EpochUs%1000000))
	if throttled {
		b.WriteString(cfmt(" %.0f", e.LagUs))
	}
	if showRetries {
		b.WriteString(" " + strconv.Itoa(e.Retries))
	}
	return b.String()
}

// AggregateLogLine is the line pgbench writes for one --aggregate-interval
// interval (without the newline). Fields pgbench does not measure under the
// options given are 0: lag without -R, skipped without -L, retries with
// --max-tries 1, failure kinds without --failures-detailed.
func AggregateLogLine(s Stats, throttled, latencyLimit, showRetries, failuresDetailed bool) string {
	var lag SimpleStats
	if throttled {
		lag = s.Lag
	}
	var skipped, retried, retries, serialization, deadlock int64
	if latencyLimit {
		skipped = s.Skipped
	}
	if showRetries {
		retried, retries = s.Retried, s.Retries
	}
	if failuresDetailed {
		serialization, deadlock = s.SerializationFailures, s.DeadlockFailures
	}
	return cfmt("%d %d %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %d %d %d %d %d",
		s.StartUs/1000000, s.Count, s.Latency.Sum, s.Latency.Sum2, s.Latency.Min, s.Latency.Max,
		lag.Sum, lag.Sum2, lag.Min, lag.Max, skipped, retried, retries, serialization, deadlock)
}
