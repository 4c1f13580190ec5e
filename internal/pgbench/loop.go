package pgbench

import (
	"context"
	"errors"
	"iter"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/pgoltp/pgoltp/internal/pgwire"
)

// A thread loop runs its clients as pgbench's thread runs them: it waits
// for all their sockets (and sleeps) in one poll and moves on the clients
// that are ready. Each client's code stays straight-line (client.run):
// it runs as a coroutine (iter.Pull) that yields to the loop whenever it
// would wait for the server or the clock, and is resumed on the loop's own
// thread. A round trip so costs a write, a read and a share of one poll,
// with no goroutine parked or woken, which is what a goroutine per client
// through pgconn cost twice over (bench/RESULTS.md).

// waiting is what a client yields for: a socket ready for events, or the
// run's clock reaching untilUs, or (orStop) the run's end.
type waiting struct {
	fd      int
	events  int16
	untilUs int64
	orStop  bool
}

// errInterrupted ends a client whose run was interrupted (SIGINT).
var errInterrupted = errors.New("interrupted")

// block yields the client to its loop until w comes true; it returns the
// socket's events.
func (c *client) block(w waiting) (int16, error) {
	if c.interrupted {
		return 0, errInterrupted
	}
	if !c.yield(w) {
		c.interrupted = true
		return 0, errInterrupted
	}
	return c.revents, nil
}

// sleepUntil waits for the run's clock to reach us, or for the run's end
// when orStop.
func (c *client) sleepUntil(us int64, orStop bool) error {
	_, err := c.block(waiting{fd: -1, untilUs: us, orStop: orStop})
	return err
}

// coroutine is a client as its loop drives it.
type coroutine struct {
	c    *client
	next func() (waiting, bool)
	stop func()
	w    waiting
	done bool
}

// runLoops runs the clients in loops: one per thread, or one per client
// when connections are not plain sockets (their reads block).
func (e *engine) runLoops(ctx context.Context, perClient bool) {
	var groups [][]*client
	for _, t := range e.threads {
		if !perClient {
			groups = append(groups, t.clients)
			continue
		}
		for _, c := range t.clients {
			groups = append(groups, []*client{c})
		}
	}
	// A loop that has a P of its own keeps it while it polls (raw). The
	// rest of the program (progress reports, signals, timers) then runs
	// when the runtime preempts a loop, every 10 ms or so. With a P to
	// spare, each such preemption woke an idle thread that took the loop
	// over: futex wake-ups, migrations, and a third thread sharing the
	// loops' work, whose switches cost more CPU per transaction than
	// pgbench's two threads (bench/RESULTS.md).
	raw := runtime.GOMAXPROCS(0) >= len(groups)
	var wg sync.WaitGroup
	for _, g := range groups {
		wg.Go(func() { e.loop(ctx, g, raw) })
	}
	wg.Wait()
}

// loop drives clients until every one has finished.
func (e *engine) loop(ctx context.Context, clients []*client, raw bool) {
	cos := make([]*coroutine, len(clients))
	for i, c := range clients {
		co := &coroutine{c: c}
		co.next, co.stop = iter.Pull(func(yield func(waiting) bool) {
			c.yield = yield
			c.run(ctx)
		})
		cos[i] = co
		co.resume(0)
	}
	defer func() {
		for _, co := range cos {
			co.stop()
		}
	}()
	pfds := make([]unix.PollFd, len(cos))
	done := ctx.Done() // a closed channel is cheaper to look at than ctx.Err()
	for {
		now := e.nowUs()
		wake, active, timed := now+100000, false, false // at the latest, when the poll has a timeout: to notice ctx and -T's end
		for i, co := range cos {
			pfds[i] = unix.PollFd{Fd: -1}
			if co.done {
				continue
			}
			active = true
			if co.w.fd >= 0 {
				pfds[i] = unix.PollFd{Fd: int32(co.w.fd), Events: co.w.events}
			}
			if co.w.untilUs > 0 {
				timed = true
				wake = min(wake, co.w.untilUs)
			}
		}
		if !active {
			return
		}
		select {
		case <-done:
			e.interrupt(ctx, cos)
			return
		default:
		}
		if e.endUs > now && e.endUs < wake {
			wake = e.endUs
		}
		if err := poll(pfds, wake-now, raw, timed); err != nil && err != unix.EINTR {
			panic("pgbench: poll: " + err.Error()) // EFAULT, EINVAL, ENOMEM: a bug
		}
		now = e.nowUs()
		if e.endUs > 0 && now >= e.endUs {
			e.stopClient() // -T's end, without waiting for its timer to get a P
		}
		stop := e.stop.Load()
		for i, co := range cos {
			w := co.w
			ready := !co.done && (pfds[i].Fd >= 0 && pfds[i].Revents != 0 ||
				w.untilUs > 0 && w.untilUs <= now || w.orStop && stop)
			if ready {
				co.resume(pfds[i].Revents)
			}
		}
	}
}

// poll waits for the sockets, for at most us microseconds. A raw loop none
// of whose clients waits for the clock (timed) polls without a timeout, as
// pgbench does (pgwire.PollUntilReady): the server's answers, or the
// runtime's preemption of the loop every 10-20 ms, end the poll in time
// for -T's end (clients stop before their next transaction) and for an
// interruption.
func poll(pfds []unix.PollFd, us int64, raw, timed bool) error {
	if raw && !timed {
		return pgwire.PollUntilReady(pfds, true)
	}
	return pgwire.Poll(pfds, us, raw)
}

// resume runs the client until it yields again or ends.
func (co *coroutine) resume(revents int16) {
	co.c.revents = revents
	w, ok := co.next()
	co.w, co.done = w, !ok
}

// interrupt asks the server to cancel the statements in flight, as pgbench
// does on SIGINT, and ends the clients.
func (e *engine) interrupt(ctx context.Context, cos []*coroutine) {
	var wg sync.WaitGroup
	for _, co := range cos {
		if !co.done && co.w.fd >= 0 && co.c.conn != nil {
			k := co.c.conn.cancel
			wg.Go(func() { _ = k.Send(ctx) })
		}
	}
	wg.Wait()
	for _, co := range cos {
		co.stop()
		co.done = true
	}
}
