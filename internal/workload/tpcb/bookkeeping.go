package tpcb

import (
	"math/rand/v2"
	"time"

	"github.com/pgoltp/pgoltp/internal/measure"
	"github.com/pgoltp/pgoltp/internal/metrics"
)

// book is one client's pgbench bookkeeping, shared by both engines (the
// goroutine per client in client.go and the event loop) so that they cannot
// count differently: when the next transaction is due (-t, -T, -R's Poisson
// schedule, --latency-limit skips of transactions already late), and what a
// commit or a serialization failure/deadlock counts (--max-tries retries,
// failures, late ones, schedule lag). It is driven by the engine with the
// times it observed and never reads the clock itself.
type book struct {
	local    *metrics.Local
	lagKind  int
	maxTries int           // --max-tries; 0 or less = unlimited
	limit    time.Duration // --latency-limit; 0 = none
	sched    *measure.Poisson
	count    int             // -t per client; 0 = until the deadline
	deadline time.Time       // end of -T; zero = none
	budget   *measure.Budget // --stop-at-txns over all clients; nil = none

	done    int       // transactions scheduled so far, skipped and failed ones included
	commits int64     // transactions committed (the read/write split counts them per node)
	start   time.Time // when the current transaction was due: its latency counts from there
	try     int       // the current try of the transaction, from 1
}

// newBook is client id's bookkeeping for a run that started at start.
func newBook(local *metrics.Local, def *scriptDef, opts RunOptions, id int, start, deadline time.Time) *book {
	b := &book{local: local, lagKind: kindLag(def), maxTries: opts.MaxTries, limit: opts.LatencyLimit,
		count: opts.Transactions, deadline: deadline, budget: opts.budget}
	switch {
	case len(opts.RatePhases) > 0:
		b.sched = measure.NewPoissonPhases(opts.RatePhases, opts.Clients, start, rand.New(rand.NewPCG(opts.Seed, uint64(id))))
	case opts.Rate > 0:
		b.sched = measure.NewPoisson(opts.Rate, opts.Clients, start, rand.New(rand.NewPCG(opts.Seed, uint64(id))))
	}
	return b
}

// next is the schedule step: it returns when the client's next transaction
// is due (now without a rate), or false when the client has done its count
// or the deadline has come or the run's --stop-at-txns budget is spent.
// Under --rate with --latency-limit, transactions already later than the
// limit at now are skipped, as pgbench does; they count towards -t and the
// budget.
func (b *book) next(now time.Time) (due time.Time, ok bool) {
	if b.count > 0 && b.done >= b.count {
		return time.Time{}, false
	}
	if !b.deadline.IsZero() && !now.Before(b.deadline) {
		return time.Time{}, false
	}
	if b.sched == nil {
		return now, b.budget.Take()
	}
	due = b.sched.Take()
	for b.limit > 0 && now.Sub(due) > b.limit {
		if !b.budget.Take() {
			return time.Time{}, false
		}
		b.local.Add(kindTxn, cntSkipped, 1)
		if b.done++; b.count > 0 && b.done >= b.count {
			return time.Time{}, false
		}
		due = b.sched.Take()
	}
	if !b.deadline.IsZero() && !due.Before(b.deadline) {
		return time.Time{}, false
	}
	return due, b.budget.Take()
}

// begin starts, at now, the transaction that was due at due.
func (b *book) begin(due, now time.Time) {
	if b.sched != nil {
		b.local.Record(b.lagKind, now.Sub(due))
	}
	b.start, b.try = due, 1
}

// statement records that statement i of the script succeeded in d.
func (b *book) statement(i int, d time.Duration) { b.local.Record(kindStmt(i), d) }

// committed records the transaction's commit, seen at now.
func (b *book) committed(now time.Time) {
	lat := now.Sub(b.start)
	b.local.Record(kindTxn, lat)
	if b.limit > 0 && lat > b.limit {
		b.local.Add(kindTxn, cntLate, 1)
	}
	if b.try > 1 {
		b.local.Add(kindTxn, cntRetried, 1)
	}
	b.done++
	b.commits++
}

// lost counts the transaction in flight when the connection was lost as
// ended (its outcome is in doubt), so that -t and --stop-at-txns count it.
func (b *book) lost() { b.done++ }

// retry is called, at now, once a try has failed at statement at with a
// serialization failure or deadlock and been rolled back. It reports
// whether to run the transaction again with the same values (--max-tries);
// if not, the transaction counts as failed. Like pgbench, it stops retrying
// once the latency limit is exceeded.
func (b *book) retry(now time.Time, at int) bool {
	overLimit := b.limit > 0 && now.Sub(b.start) > b.limit
	if (b.maxTries > 0 && b.try >= b.maxTries) || overLimit {
		b.local.Add(kindTxn, cntFailures, 1)
		b.local.Add(kindStmt(at), cntFailures, 1)
		if b.try > 1 {
			b.local.Add(kindTxn, cntRetried, 1)
		}
		b.done++
		return false
	}
	b.local.Add(kindTxn, cntRetries, 1)
	b.local.Add(kindStmt(at), cntRetries, 1)
	b.try++
	return true
}
