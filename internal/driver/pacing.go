package driver

import (
	"context"
	"math"
	"time"
)

// ThinkTime returns a think time drawn from the negative exponential
// distribution with the given mean, capped at 10 × mean (TPC-C clause 5.2.5.4).
// u must be uniform in (0, 1].
func ThinkTime(mean time.Duration, u float64) time.Duration {
	if mean <= 0 {
		return 0
	}
	if u <= 0 {
		u = math.SmallestNonzeroFloat64
	}
	t := time.Duration(-math.Log(u) * float64(mean))
	if t > 10*mean {
		t = 10 * mean
	}
	return t
}

// Schedule paces one terminal to its share of a total rate (transactions per
// minute over all terminals, like BenchmarkSQL's limitTxnsPerMin). Each call to
// Next returns the scheduled start of the next transaction; latency is measured
// from that time, so a server that falls behind shows as queueing delay instead
// of a silently lower offered load. A zero Schedule (rate 0) never waits.
type Schedule struct {
	interval time.Duration
	next     time.Time
}

// NewSchedule returns the schedule of terminal i of n at totalPerMinute,
// starting at start; terminals are staggered over the first interval.
func NewSchedule(totalPerMinute float64, i, n int, start time.Time) Schedule {
	if totalPerMinute <= 0 || n <= 0 {
		return Schedule{}
	}
	interval := time.Duration(float64(time.Minute) * float64(n) / totalPerMinute)
	return Schedule{interval: interval, next: start.Add(interval * time.Duration(i) / time.Duration(n))}
}

// Limited reports whether the schedule paces at all.
func (s *Schedule) Limited() bool { return s.interval > 0 }

// Next returns the scheduled start of the next transaction and advances the
// schedule. The schedule never waits for a terminal that is late: the next slot
// is one interval after the previous slot, not after now.
func (s *Schedule) Next() time.Time {
	t := s.next
	s.next = s.next.Add(s.interval)
	return t
}

// SleepUntil waits until t or ctx is done; it reports false if ctx ended first.
func SleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	return Sleep(ctx, d)
}

// Sleep waits d or until ctx is done; it reports false if ctx ended first.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	}
}
