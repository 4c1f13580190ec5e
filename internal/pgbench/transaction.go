package pgbench

import (
	"context"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgbench/lang"
)

// nowUs is the run's clock: monotonic microseconds since the run started.
func (e *engine) nowUs() int64 { return time.Since(e.start).Microseconds() }

// more says whether the client has transactions left under -t.
func (c *client) more(n int) bool {
	e := c.e
	if e.stop.Load() || (e.o.Transactions > 0 && n >= e.o.Transactions) {
		return false
	}
	return e.drive == nil || e.drive.Budget == nil || e.drive.Budget.Take()
}

// paced says the client's transactions are scheduled: -R, or Drive's
// Schedules.
func (c *client) paced() bool { return c.e.o.Rate > 0 || c.schedule != nil }

// choose is pgbench's chooseScript, from the thread's generator.
func (c *client) choose() int {
	e := c.e
	if len(e.scripts) == 1 {
		return 0
	}
	t := c.thread
	t.mu.Lock()
	si := lang.ChooseScript(t.streams.Choose, e.weights, e.total)
	t.mu.Unlock()
	return si
}

// throttle is -R: the next slot of the thread's Poisson schedule, slept
// until. skip says the slot is already later than -L allows; finished, that
// it falls after -T's end (this client is done).
func (c *client) throttle() (scheduled int64, skip, finished bool) {
	e := c.e
	if c.schedule != nil {
		scheduled = c.schedule.Take().Sub(e.start).Microseconds()
	} else {
		t := c.thread
		t.mu.Lock()
		t.trigger += lang.RandPoisson(t.streams.Throttle, e.throttleDelay)
		scheduled = t.trigger
		t.mu.Unlock()
	}
	now := e.nowUs()
	if e.o.LatencyLimitUs > 0 && scheduled < now-e.o.LatencyLimitUs {
		return scheduled, true, false
	}
	if e.endUs > 0 && scheduled > e.endUs {
		return scheduled, false, true
	}
	if scheduled > now && c.sleepUntil(scheduled, true) != nil {
		return scheduled, false, true
	}
	return scheduled, false, e.stop.Load()
}

// transaction runs script si once, with pgbench's retries of serialization
// and deadlock failures; false means the client aborted.
func (c *client) transaction(ctx context.Context, si int, scheduled int64) bool {
	e := c.e
	c.script = si
	// a retry draws the same random values: pgbench 15 restores the
	// client's generator, not its variables (a \gset or \set of the failed
	// try stays)
	savedRNG := *c.rng
	begin := e.nowUs()
	if !c.paced() {
		scheduled = begin
	}
	for tries := 1; ; tries++ {
		out, ci := c.runScript(ctx, si)
		if out == aborted {
			return false
		}
		if out == succeeded {
			c.account(si, scheduled, begin, tries, succeeded, false)
			return c.idle()
		}
		if !c.rollback(ctx) {
			return false
		}
		retry := c.canRetry(tries, scheduled)
		if e.o.VerboseErrors {
			c.verboseRetry(retry, tries, scheduled)
		}
		c.mu.Lock()
		if retry {
			c.scripts[si].Commands[ci].Retries++
		} else {
			c.scripts[si].Commands[ci].Failures++
		}
		c.mu.Unlock()
		if !retry {
			c.failedAt = e.cmds[si][ci].n
			c.account(si, scheduled, begin, tries, out, false)
			return true
		}
		if c.sink != nil {
			c.sink.Retry(e.cmds[si][ci].n)
		}
		*c.rng = savedRNG
	}
}

// idle is pgbench's check at the end of a script, after the transaction
// is counted: a transaction block left open aborts the client.
func (c *client) idle() bool {
	if st := c.conn.txStatus; st == 'T' || st == 'E' {
		c.e.printf("%s: error: client %d aborted: end of script reached without completing the last transaction\n", progName, c.id)
		return false
	}
	return true
}

// canRetry is pgbench's doRetry for a serialization or deadlock failure.
func (c *client) canRetry(tries int, scheduled int64) bool {
	o := c.e.o
	switch {
	case o.MaxTries != 0 && tries >= o.MaxTries:
		return false
	case o.LatencyLimitUs > 0 && c.e.nowUs()-scheduled > o.LatencyLimitUs:
		return false
	}
	return !c.e.stop.Load()
}

func (c *client) verboseRetry(retry bool, tries int, scheduled int64) {
	o := c.e.o
	what := "ends the failed transaction"
	if retry {
		what = "repeats the transaction after the error"
	}
	msg := cfmt("client %d %s (try %d", c.id, what, tries)
	if o.MaxTries != 0 {
		msg += cfmt("/%d", o.MaxTries)
	}
	if o.LatencyLimitUs > 0 {
		msg += cfmt(", %.3f%% of the maximum time of tries was used", 100*float64(c.e.nowUs()-scheduled)/float64(o.LatencyLimitUs))
	}
	c.e.printf("%s: %s\n", progName, msg)
}

var rollbackSQL = []byte("ROLLBACK")

// rollback ends a failed transaction block, as pgbench does before it
// retries or moves on; false means the client aborted.
func (c *client) rollback(ctx context.Context) bool {
	switch c.conn.txStatus {
	case 'I':
		return true
	case 'T', 'E':
		if err := c.conn.exec(rollbackSQL); err != nil {
			if c.connLost(err) {
				return false
			}
			c.err = err
			c.e.printf("%s: error: client %d aborted while rolling back the transaction after an error; %s\n", progName, c.id, errorText(err))
			return false
		}
		return true
	}
	c.e.printf("%s: error: client %d aborted while receiving the transaction status\n", progName, c.id)
	return false
}

// skip accounts a transaction -L skipped under -R.
func (c *client) skip(si int, scheduled int64) {
	c.account(si, scheduled, scheduled, 1, succeeded, true)
}

// account is pgbench's processXactStats: the run's, the script's and the
// log's view of one finished transaction.
func (c *client) account(si int, scheduled, begin int64, tries int, out outcome, skipped bool) {
	e := c.e
	now := e.nowUs()
	latency, lag := float64(now-scheduled), float64(begin-scheduled)
	paced := c.paced()
	if c.sink != nil {
		c.sink.Transaction(Tx{Latency: time.Duration(now-scheduled) * time.Microsecond, Lag: time.Duration(begin-scheduled) * time.Microsecond,
			Paced: paced, Tries: tries, Skipped: skipped, Failed: out != succeeded, At: c.failedAt})
	}
	c.mu.Lock()
	addTx(&c.stats, skipped, latency, lag, out, tries, paced)
	addTx(&c.scripts[si].Stats, skipped, latency, lag, out, tries, paced)
	if !skipped && out == succeeded && e.o.LatencyLimitUs > 0 && int64(latency) > e.o.LatencyLimitUs {
		c.late++
	}
	c.mu.Unlock()
	if c.thread.log != nil {
		c.thread.log.transaction(c, si, e.epochStartUs+now, latency, lag, tries, out, skipped)
	}
	c.txCount++
}

// addTx is pgbench's accumStats.
func addTx(s *Stats, skipped bool, latency, lag float64, out outcome, tries int, throttled bool) {
	if tries > 1 {
		s.Retries += int64(tries - 1)
		s.Retried++
	}
	switch out {
	case succeeded:
		if skipped {
			s.Skipped++
			return
		}
		s.Count++
		s.Latency.Add(latency)
		if throttled {
			s.Lag.Add(lag)
		}
	case serializationFailure:
		s.SerializationFailures++
	case deadlockFailure:
		s.DeadlockFailures++
	}
}
