package measure

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Budget is --stop-at-txns: a run-wide count of transactions shared by all
// clients or terminals. Each takes one ticket before it starts a
// transaction and stops when none is left, so exactly N transactions are
// started and run to their end (committed, rolled back as the workload
// says, or failed after its retries); none is cut off in flight. A nil
// Budget has no limit.
type Budget struct {
	limit int64
	taken atomic.Int64
}

// NewBudget returns a budget of n transactions, or nil (no limit) for n ≤ 0.
func NewBudget(n int64) *Budget {
	if n <= 0 {
		return nil
	}
	return &Budget{limit: n}
}

// Take claims one transaction; false when the budget is spent.
func (b *Budget) Take() bool {
	if b == nil {
		return true
	}
	if b.taken.Load() >= b.limit { // no increment once spent: Taken stays ≤ limit
		return false
	}
	return b.taken.Add(1) <= b.limit
}

// Taken is how many transactions were started against the budget (at most
// its limit).
func (b *Budget) Taken() int64 {
	if b == nil {
		return 0
	}
	return min(b.taken.Load(), b.limit)
}

// Limit is the budget's size (0 for none).
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit
}

// Spent reports whether every ticket has been taken.
func (b *Budget) Spent() bool { return b != nil && b.taken.Load() >= b.limit }

// TimeLeft estimates, for the live line, how long the rest of the budget
// takes at the average rate so far: "~1h02m left (37% done)". It returns ""
// with no budget or nothing done yet.
func (b *Budget) TimeLeft(elapsed time.Duration) string {
	done := b.Taken()
	if done <= 0 || elapsed <= 0 {
		return ""
	}
	left := time.Duration(float64(elapsed) * float64(b.limit-done) / float64(done))
	return fmt.Sprintf("~%s left (%.0f%% of %d txns)", roundLeft(left), 100*float64(done)/float64(b.limit), b.limit)
}

// roundLeft keeps an estimate's digits honest: seconds under ten minutes,
// minutes above.
func roundLeft(d time.Duration) time.Duration {
	if d < 10*time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(time.Minute)
}
