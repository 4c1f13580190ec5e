package pgbench

import "golang.org/x/sys/unix"

// monotonicMicros is pgbench's pg_time_now(): the monotonic clock, which
// --random-seed=time (the default) seeds from.
func monotonicMicros() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return nowMicros()
	}
	return ts.Nano() / 1000
}
