// Package pgbenchlog reads what pgbench writes: its per-transaction logs
// (-l, one file per thread) and its summary on standard output. It turns the
// logs into what pgoltp stores for a run of its own (a per-second series and
// one HDR histogram per script), so a run of the real pgbench gets the same
// report, comparisons and statistics as pgoltp's runs.
package pgbenchlog

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Outcome is how a logged transaction ended.
type Outcome uint8

const (
	Committed     Outcome = iota
	Skipped               // not started: later than --latency-limit allows under --rate
	Failed                // a failure (--failures-detailed says which, below)
	Serialization         // failed on a serialization error (--failures-detailed)
	Deadlock              // failed on a deadlock (--failures-detailed)
)

// Txn is one line of a per-transaction log.
type Txn struct {
	Client, Script int
	Latency        time.Duration // 0 unless committed
	Outcome        Outcome
	End            time.Time // when it completed (time_epoch, time_us)
	Retries        int64     // 0 unless the log has the retries field
}

// Start is when the transaction started.
func (t Txn) Start() time.Time { return t.End.Add(-t.Latency) }

// Fields says which optional fields a log's lines carry after the six
// fixed ones: schedule_lag when pgbench ran with --rate, retries when
// --max-tries was not 1. Seven fields are ambiguous without it.
type Fields struct {
	Lag, Retries bool
}

// parseLine reads one per-transaction line:
// client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries].
func parseLine(line string, fields Fields) (Txn, error) {
	f := strings.Fields(line)
	if len(f) < 6 || len(f) > 8 {
		return Txn{}, fmt.Errorf("%d fields, a per-transaction line has 6 to 8", len(f))
	}
	var t Txn
	var err error
	if t.Client, err = strconv.Atoi(f[0]); err != nil {
		return Txn{}, fmt.Errorf("client_id %q is not a number", f[0])
	}
	if t.Script, err = strconv.Atoi(f[3]); err != nil || t.Script < 0 {
		return Txn{}, fmt.Errorf("script_no %q is not a number", f[3])
	}
	if t.Outcome, t.Latency, err = parseTime(f[2]); err != nil {
		return Txn{}, err
	}
	sec, err1 := strconv.ParseInt(f[4], 10, 64)
	usec, err2 := strconv.ParseInt(f[5], 10, 64)
	if err1 != nil || err2 != nil || usec < 0 || usec >= 1e6 {
		return Txn{}, fmt.Errorf("time_epoch %q time_us %q are not a time", f[4], f[5])
	}
	t.End = time.Unix(sec, usec*1000)
	retries := ""
	switch {
	case len(f) == 8:
		retries = f[7]
	case len(f) == 7 && fields.Retries && !fields.Lag:
		retries = f[6]
	}
	if retries != "" {
		if t.Retries, err = strconv.ParseInt(retries, 10, 64); err != nil || t.Retries < 0 {
			return Txn{}, fmt.Errorf("retries %q is not a count", retries)
		}
	}
	return t, nil
}

// parseTime reads the time field: microseconds, or how the transaction did
// not commit.
func parseTime(s string) (Outcome, time.Duration, error) {
	switch s {
	case "skipped":
		return Skipped, 0, nil
	case "failed":
		return Failed, 0, nil
	case "serialization":
		return Serialization, 0, nil
	case "deadlock":
		return Deadlock, 0, nil
	}
	us, err := strconv.ParseInt(s, 10, 64)
	if err != nil || us < 0 {
		return 0, 0, fmt.Errorf("time %q is neither microseconds nor skipped/failed/serialization/deadlock", s)
	}
	return Committed, time.Duration(us) * time.Microsecond, nil
}
