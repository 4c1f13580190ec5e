//go:build linux

package tpcb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/sys/unix"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/pgwire"
)

// The event loop is how pgbench itself runs clients: each job (pgbench's
// thread, -j) owns several connections and waits for all of them in one
// ppoll(2), sending each client's next statement as soon as the previous
// answer is in. Connections are opened and prepared by pgconn, then hijacked
// down to their sockets (internal/pgwire, shared with pgoltp pgbench's
// engine); the handful of protocol messages of the built-in scripts are
// appended to reused buffers and the answers split into messages in place. Counting is the book's (bookkeeping.go),
// as in the goroutine engine. Linux only (ppoll, raw syscalls); elsewhere
// every client is a goroutine (eventloop_other.go).
//
// Why not a goroutine per connection: on loopback every round trip then
// costs a park, a netpoll and thread wake-ups in the Go scheduler, about
// twice pgbench's CPU per transaction (bench/RESULTS.md). The loop costs
// what pgbench costs: one send, one receive and a share of one poll per
// statement. Connections that cannot be hijacked to a plain socket (TLS)
// use the goroutine-per-client path (client.go) instead.

// Client states in the loop.
const (
	stIdle     = iota // between transactions
	stWaiting         // --rate: waiting for its scheduled start
	stRunning         // a statement is in flight
	stRollback        // ROLLBACK after a serialization failure is in flight
	stFinished
)

// loopClient is one connection driven by a job's loop.
type loopClient struct {
	id int
	// onLost takes the client over when its connection is lost (the
	// reconnector): the loop is done with it, without an error.
	onLost func(error)
	fd     int
	def    *scriptDef
	proto  Protocol
	scale  space
	rng    *rand.Rand
	book   *book
	cancel pgwire.Canceller

	vals    [numVars]int64
	text    [numVars][]byte
	params  []byte // scratch
	out, in []byte
	args    [][]byte
	sqls    []string
	names   []string
	state   int
	stmt    int
	stmtAt  time.Time
	due     time.Time
	pgErr   *pgconn.PgError // ErrorResponse of the statement in flight
	err     error
}

func newLoopClient(id, fd int, c *client, b *book, k pgwire.Canceller) *loopClient {
	lc := &loopClient{id: id, fd: fd, def: c.def, proto: c.proto, scale: c.scale, rng: c.rng, book: b, cancel: k,
		sqls: c.sqls, out: make([]byte, 0, 512), in: make([]byte, 0, 8192)}
	for v := range lc.text {
		lc.text[v] = make([]byte, 0, 24)
	}
	for i := range c.def.stmts {
		lc.names = append(lc.names, preparedName(i))
	}
	return lc
}

// job is one pgbench thread: a loop over its clients.
type job struct {
	clients []*loopClient
	pfds    []unix.PollFd
	// rawPoll: ppoll without telling the scheduler, only when there is a P
	// to spare for every job and one more (see rawsys_linux.go).
	rawPoll bool
}

// run drives the job's clients until all are finished. When ctx ends, the
// statements in flight are cancelled on the server.
func (j *job) run(ctx context.Context) {
	now := time.Now()
	for _, c := range j.clients {
		c.next(ctx, now)
	}
	j.pfds = make([]unix.PollFd, len(j.clients))
	for {
		active := false
		wake := now.Add(50 * time.Millisecond) // to notice ctx
		for i, c := range j.clients {
			j.pfds[i] = unix.PollFd{Fd: -1}
			switch c.state {
			case stRunning, stRollback:
				j.pfds[i] = unix.PollFd{Fd: int32(c.fd), Events: unix.POLLIN}
				active = true
			case stWaiting:
				active = true
				if c.due.Before(wake) {
					wake = c.due
				}
			}
		}
		if !active {
			return
		}
		if ctx.Err() != nil {
			j.cancel(ctx)
			return
		}
		if d := j.clients[0].book.deadline; !d.IsZero() && d.Before(wake) {
			wake = d
		}
		err := pgwire.Poll(j.pfds, time.Until(wake).Microseconds(), j.rawPoll)
		if err != nil && err != pgwire.EINTR {
			for _, c := range j.clients {
				c.finish(fmt.Errorf("ppoll: %w", err))
			}
			return
		}
		for i, c := range j.clients {
			if j.pfds[i].Fd >= 0 && j.pfds[i].Revents != 0 {
				c.readable(ctx)
			}
		}
		now = time.Now()
		for _, c := range j.clients {
			if c.state == stWaiting && !c.due.After(now) {
				c.begin(ctx, c.due, now)
			}
		}
	}
}

// cancel ends every client, asking the server to cancel the statements of
// those with one in flight (pgbench does the same on SIGINT).
func (j *job) cancel(ctx context.Context) {
	var wg sync.WaitGroup
	for _, c := range j.clients {
		if c.state == stRunning || c.state == stRollback {
			wg.Go(func() { _ = c.cancel.Send(ctx) })
		}
		c.finish(ctx.Err())
	}
	wg.Wait()
}

// next moves an idle client on, as its book schedules: finished, waiting
// for its scheduled start, or into its next transaction.
func (c *loopClient) next(ctx context.Context, now time.Time) {
	due, ok := c.book.next(now)
	switch {
	case !ok:
		c.finish(nil)
	case due.After(now):
		c.state, c.due = stWaiting, due
	default:
		c.begin(ctx, due, now)
	}
}

// begin starts, at now, the transaction due at due.
func (c *loopClient) begin(ctx context.Context, due, now time.Time) {
	c.book.begin(due, now)
	drawVars(c.rng, c.scale, &c.vals, &c.text)
	c.send(ctx, 0, now)
}

// send writes statement i.
func (c *loopClient) send(ctx context.Context, i int, now time.Time) {
	c.stmt, c.state, c.stmtAt, c.pgErr = i, stRunning, now, nil
	s := &c.def.stmts[i]
	switch c.proto {
	case ProtocolSimple:
		c.params = s.appendSimple(c.params[:0], &c.vals)
		c.out = pgwire.AppendQuery(c.out[:0], c.params)
	default:
		c.args = c.args[:0]
		for _, v := range s.vars {
			c.args = append(c.args, c.text[v])
		}
		if c.proto == ProtocolExtended {
			c.out = pgwire.AppendExtended(c.out[:0], c.sqls[i], "", c.args)
		} else {
			c.out = pgwire.AppendExtended(c.out[:0], "", c.names[i], c.args)
		}
		c.out = pgwire.AppendSync(c.out)
	}
	c.write(ctx, c.out)
}

var rollbackSQL = []byte("ROLLBACK")

// sendRollback ends a failed transaction block.
func (c *loopClient) sendRollback(ctx context.Context) {
	c.state, c.pgErr = stRollback, nil
	c.out = pgwire.AppendQuery(c.out[:0], rollbackSQL)
	c.write(ctx, c.out)
}

// write sends b whole; the socket buffer is empty when a client writes
// (it waits for each answer), so EAGAIN is rare and waits in poll, for as
// long as ctx lasts.
func (c *loopClient) write(ctx context.Context, b []byte) {
	for len(b) > 0 {
		n, err := pgwire.Write(c.fd, b)
		if err == pgwire.EAGAIN {
			if ctx.Err() != nil {
				c.finish(ctx.Err())
				return
			}
			pfd := []unix.PollFd{{Fd: int32(c.fd), Events: pgwire.POLLOUT}}
			_ = pgwire.Poll(pfd, 50000, false)
			continue
		}
		if err != 0 {
			c.finish(fmt.Errorf("writing to the server: %w", err))
			return
		}
		b = b[n:]
	}
}

// readable reads what the server sent and handles each complete message.
// When the server has closed the connection, the error it sent before
// closing (a FATAL such as an administrator's termination) is what the
// client reports.
func (c *loopClient) readable(ctx context.Context) {
	var lost error
	for {
		c.in = pgwire.Room(c.in, 4096)
		free := cap(c.in) - len(c.in)
		n, errno := pgwire.Read(c.fd, c.in[len(c.in):cap(c.in)])
		if errno == pgwire.EAGAIN {
			break
		}
		if errno != 0 || n == 0 {
			lost = io.EOF
			if errno != 0 {
				lost = errno
			}
			break
		}
		c.in = c.in[:len(c.in)+n]
		if n < free {
			break // short read: nothing more buffered
		}
	}
	buf := c.in
	for c.state != stFinished {
		typ, body, size, ok := pgwire.NextMessage(buf)
		if !ok {
			break
		}
		buf = buf[size:]
		switch typ {
		case 'E':
			c.pgErr = pgwire.DecodeError(body)
		case 'Z':
			c.answered(ctx)
		}
	}
	c.in = c.in[:copy(c.in, buf)]
	if lost != nil && c.state != stFinished {
		if c.pgErr != nil {
			c.finish(fmt.Errorf("the server closed the connection: %w", c.pgErr))
			return
		}
		c.finish(fmt.Errorf("connection to the server lost: %w", lost))
	}
}

// answered handles the end (ReadyForQuery) of a statement or rollback.
func (c *loopClient) answered(ctx context.Context) {
	now := time.Now()
	if c.state == stRollback {
		c.afterRollback(ctx, now)
		return
	}
	if c.pgErr == nil {
		c.book.statement(c.stmt, now.Sub(c.stmtAt))
		if c.stmt+1 < len(c.def.stmts) {
			c.send(ctx, c.stmt+1, now)
			return
		}
		c.book.committed(now)
		c.state = stIdle
		c.next(ctx, now)
		return
	}
	if !driver.Retryable(c.pgErr) {
		c.finish(c.pgErr)
		return
	}
	if len(c.def.stmts) > 1 {
		c.sendRollback(ctx)
		return
	}
	c.afterRollback(ctx, now)
}

// afterRollback retries the failed transaction with the same values, or
// counts it failed, as the book decides.
func (c *loopClient) afterRollback(ctx context.Context, now time.Time) {
	if c.book.retry(now, c.stmt) {
		c.send(ctx, 0, now)
		return
	}
	c.state = stIdle
	c.next(ctx, now)
}

// finish ends the client; err is why, nil when its work is done.
func (c *loopClient) finish(err error) {
	if c.state == stFinished {
		return
	}
	c.state, c.err = stFinished, err
	if c.onLost != nil && connectionLost(err) {
		c.err = nil
		c.close()
		c.onLost(err)
	}
}

// close says goodbye (Terminate) and closes the socket.
func (c *loopClient) close() {
	if c.fd < 0 {
		return
	}
	c.out = pgwire.AppendTerminate(c.out[:0])
	_, _ = pgwire.Write(c.fd, c.out)
	pgwire.Close(c.fd)
	c.fd = -1
}

// runLoops hijacks every client's socket and drives them in opts.Jobs
// loops. It reports false, having touched nothing, when a connection is not
// a plain socket (TLS): the caller then uses the goroutine path.
func runLoops(ctx context.Context, clients []*client, books []*book, rc *reconnector, opts RunOptions) ([]error, bool, error) {
	for _, c := range clients {
		if !pgwire.PlainSocket(c.conn) {
			return nil, false, nil
		}
	}
	loops := make([]*loopClient, len(clients))
	for i, c := range clients {
		s, err := pgwire.TakeOver(ctx, c.conn)
		if err == nil && s.FD < 0 {
			_ = s.Conn.Close()
			err = errors.New("connection is not a plain socket")
		}
		if err != nil {
			for _, l := range loops[:i] {
				l.close()
			}
			return nil, true, fmt.Errorf("taking over connection %d: %w", i, err)
		}
		loops[i] = newLoopClient(i, s.FD, c, books[i], s.Cancel)
		loops[i].onLost = func(err error) { rc.handOver(i, c, books[i], err) }
	}
	defer func() {
		for _, l := range loops {
			l.close()
		}
	}()
	jobs := make([]*job, opts.Jobs)
	for i := range jobs {
		jobs[i] = &job{rawPoll: runtime.GOMAXPROCS(0) > opts.Jobs}
	}
	for i, l := range loops {
		jobs[i%len(jobs)].clients = append(jobs[i%len(jobs)].clients, l)
	}
	var wg sync.WaitGroup
	for _, jb := range jobs {
		wg.Go(func() { jb.run(ctx) })
	}
	wg.Wait()
	errs := make([]error, len(loops))
	for i, l := range loops {
		errs[i] = l.err
	}
	return errs, true, nil
}
