package pgbench

import "strconv"

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
	return string(AppendTxLogLine(nil, e, throttled, showRetries))
}

// AppendTxLogLine appends TxLogLine's text to b; a run's log writes through
// it so that logging a transaction allocates nothing. Go's 'f' formatting
// rounds the exact binary value as C's %.0f does.
func AppendTxLogLine(b []byte, e TxLogEntry, throttled, showRetries bool) []byte {
	b = strconv.AppendInt(b, int64(e.Client), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, e.Transaction, 10)
	b = append(b, ' ')
	if e.Result == "" {
		b = strconv.AppendFloat(b, e.LatencyUs, 'f', 0, 64)
	} else {
		b = append(b, e.Result...)
	}
	for _, n := range [...]int64{int64(e.Script), e.EpochUs / 1000000, e.EpochUs % 1000000} {
		b = append(b, ' ')
		b = strconv.AppendInt(b, n, 10)
	}
	if throttled {
		b = append(b, ' ')
		b = strconv.AppendFloat(b, e.LagUs, 'f', 0, 64)
	}
	if showRetries {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(e.Retries), 10)
	}
	return b
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
