package tpcb

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/sys/unix"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/metrics"
)

// The event loop is how pgbench itself runs clients: each job (pgbench's
// thread, -j) owns several connections and waits for all of them in one
// ppoll(2), sending each client's next statement as soon as the previous
// answer is in. Connections are opened and prepared by pgconn, then hijacked
// down to their sockets, and the handful of protocol messages of the
// built-in scripts are written and parsed directly (wire.go).
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
	id    int
	fd    int
	def   *scriptDef
	proto Protocol
	scale int64
	rng   *rand.Rand
	local *metrics.Local
	sched *poissonSchedule

	vals     [numVars]int64
	text     [numVars][]byte
	params   []byte // scratch
	out, in  []byte
	args     [][]byte
	sqls     []string
	names    []string
	state    int
	stmt     int
	try      int
	done     int
	txStart  time.Time
	stmtAt   time.Time
	due      time.Time
	errCode  string
	errMsg   string
	failAt   int
	err      error
	maxTries int
	limit    time.Duration
}

// hijackSocket takes the socket of an idle pgconn connection for the loop.
// It returns -1 (and leaves conn usable) when the connection is not a plain
// TCP or Unix socket.
func hijackSocket(ctx context.Context, conn *pgconn.PgConn) (int, error) {
	if err := conn.SyncConn(ctx); err != nil {
		return -1, err
	}
	sc, ok := conn.Conn().(syscall.Conn)
	if !ok {
		return -1, nil
	}
	switch conn.Conn().(type) {
	case *net.TCPConn, *net.UnixConn:
	default:
		return -1, nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1, nil
	}
	fd := -1
	var dupErr error
	if err := raw.Control(func(f uintptr) { fd, dupErr = unix.Dup(int(f)) }); err != nil || dupErr != nil {
		return -1, nil
	}
	hc, err := conn.Hijack()
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	_ = hc.Conn.Close() // the dup keeps the socket
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

func newLoopClient(id, fd int, c *client) *loopClient {
	lc := &loopClient{id: id, fd: fd, def: c.def, proto: c.proto, scale: c.scale, rng: c.rng, local: c.local,
		maxTries: c.maxTries, limit: c.limit, sqls: c.sqls, out: make([]byte, 0, 512), in: make([]byte, 0, 8192)}
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
	clients  []*loopClient
	opts     RunOptions
	start    time.Time
	deadline time.Time
	pfds     []unix.PollFd
	// rawPoll: ppoll without telling the scheduler, only when there is a P
	// to spare for every job and one more (see rawsys.go).
	rawPoll bool
}

// run drives the job's clients until all are finished.
func (j *job) run(ctx context.Context) {
	now := time.Now()
	for _, c := range j.clients {
		if j.opts.Rate > 0 {
			c.sched = newPoissonSchedule(j.opts.Rate, j.opts.Clients, j.start, rand.New(rand.NewPCG(j.opts.Seed, uint64(c.id))))
		}
		j.next(c, now)
	}
	j.pfds = make([]unix.PollFd, len(j.clients))
	var ts unix.Timespec
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
			for _, c := range j.clients {
				if c.state != stFinished {
					c.finish(ctx.Err())
				}
			}
			return
		}
		if !j.deadline.IsZero() && j.deadline.Before(wake) {
			wake = j.deadline
		}
		ts = unix.NsecToTimespec(max(0, int64(time.Until(wake))))
		var err error
		if j.rawPoll {
			if errno := rawPpoll(j.pfds, &ts); errno != 0 {
				err = errno
			}
		} else {
			_, err = unix.Ppoll(j.pfds, &ts, nil)
		}
		if err != nil && err != unix.EINTR {
			for _, c := range j.clients {
				if c.state != stFinished {
					c.finish(fmt.Errorf("ppoll: %w", err))
				}
			}
			return
		}
		for i, c := range j.clients {
			if j.pfds[i].Fd >= 0 && j.pfds[i].Revents != 0 {
				j.readable(c)
			}
		}
		now = time.Now()
		for _, c := range j.clients {
			if c.state == stWaiting && !c.due.After(now) {
				j.begin(c, now, c.due)
			}
		}
	}
}

// next moves an idle client on: finished, waiting for its scheduled start,
// or into its next transaction. Skipping of late transactions under
// --rate with --latency-limit follows pgbench.
func (j *job) next(c *loopClient, now time.Time) {
	o := &j.opts
	if o.Transactions > 0 && c.done >= o.Transactions {
		c.finish(nil)
		return
	}
	if !j.deadline.IsZero() && !now.Before(j.deadline) {
		c.finish(nil)
		return
	}
	if c.sched == nil {
		j.begin(c, now, now)
		return
	}
	due := c.sched.take()
	if o.LatencyLimit > 0 {
		for now.Sub(due) > o.LatencyLimit {
			c.local.Add(kindTxn, cntSkipped, 1)
			if c.done++; o.Transactions > 0 && c.done >= o.Transactions {
				c.finish(nil)
				return
			}
			due = c.sched.take()
		}
	}
	if !j.deadline.IsZero() && !due.Before(j.deadline) {
		c.finish(nil)
		return
	}
	if due.After(now) {
		c.state, c.due = stWaiting, due
		return
	}
	j.begin(c, now, due)
}

// begin starts a transaction due at due (its latency counts from there).
func (j *job) begin(c *loopClient, now, due time.Time) {
	if c.sched != nil {
		c.local.Record(kindLag(c.def), now.Sub(due))
	}
	drawVars(c.rng, c.scale, &c.vals, &c.text)
	c.txStart, c.try = due, 1
	c.send(0, now)
}

// send writes statement i.
func (c *loopClient) send(i int, now time.Time) {
	c.stmt, c.state, c.stmtAt = i, stRunning, now
	c.errCode, c.errMsg = "", ""
	s := &c.def.stmts[i]
	b := c.out[:0]
	switch c.proto {
	case ProtocolSimple:
		c.params = s.appendSimple(c.params[:0], &c.vals)
		b = appendQuery(b, c.params)
	default:
		c.args = c.args[:0]
		for _, v := range s.vars {
			c.args = append(c.args, c.text[v])
		}
		name := ""
		if c.proto == ProtocolExtended {
			b = appendParse(b, c.sqls[i])
		} else {
			name = c.names[i]
		}
		b = appendBind(b, name, c.args)
		b = appendDescribeExecuteSync(b)
	}
	c.out = b
	c.write(b)
}

// sendRollback ends a failed transaction block.
func (c *loopClient) sendRollback() {
	c.state = stRollback
	c.errCode, c.errMsg = "", ""
	c.out = appendQuery(c.out[:0], []byte("ROLLBACK"))
	c.write(c.out)
}

// write sends b whole; the socket buffer is empty when a client writes
// (it waits for each answer), so EAGAIN is rare and waits in poll.
func (c *loopClient) write(b []byte) {
	for len(b) > 0 {
		n, err := rawWrite(c.fd, b)
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN {
			pfd := []unix.PollFd{{Fd: int32(c.fd), Events: unix.POLLOUT}}
			_, _ = unix.Poll(pfd, 1000)
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
func (j *job) readable(c *loopClient) {
	for {
		if cap(c.in)-len(c.in) < 4096 {
			grown := make([]byte, len(c.in), 2*cap(c.in)+4096)
			copy(grown, c.in)
			c.in = grown
		}
		free := cap(c.in) - len(c.in)
		n, errno := rawRead(c.fd, c.in[len(c.in):cap(c.in)])
		if errno == unix.EINTR {
			continue
		}
		if errno == unix.EAGAIN {
			break
		}
		if errno != 0 || n == 0 {
			var err error = io.EOF
			if errno != 0 {
				err = errno
			}
			c.finish(fmt.Errorf("connection to the server lost: %w", err))
			return
		}
		c.in = c.in[:len(c.in)+n]
		if n < free {
			break // short read: nothing more buffered
		}
	}
	buf := c.in
	for len(buf) >= 5 && c.state != stFinished {
		size := int(binary.BigEndian.Uint32(buf[1:5]))
		if len(buf) < 1+size {
			break
		}
		typ, body := buf[0], buf[5:1+size]
		buf = buf[1+size:]
		switch typ {
		case 'E':
			c.errCode, c.errMsg = errorFields(body)
		case 'Z':
			j.answered(c)
		}
	}
	c.in = c.in[:copy(c.in, buf)]
}

// answered handles the end (ReadyForQuery) of a statement or rollback.
func (j *job) answered(c *loopClient) {
	now := time.Now()
	if c.state == stRollback {
		j.afterRollback(c, now)
		return
	}
	if c.errCode == "" && c.errMsg == "" {
		c.local.Record(kindStmt(c.stmt), now.Sub(c.stmtAt))
		if c.stmt+1 < len(c.def.stmts) {
			c.send(c.stmt+1, now)
			return
		}
		lat := now.Sub(c.txStart)
		c.local.Record(kindTxn, lat)
		if c.limit > 0 && lat > c.limit {
			c.local.Add(kindTxn, cntLate, 1)
		}
		if c.try > 1 {
			c.local.Add(kindTxn, cntRetried, 1)
		}
		c.done++
		c.state = stIdle
		j.next(c, now)
		return
	}
	pgErr := &pgconn.PgError{Code: c.errCode, Message: c.errMsg, Severity: "ERROR"}
	if !driver.Retryable(pgErr) {
		c.finish(pgErr)
		return
	}
	c.failAt = c.stmt
	if len(c.def.stmts) > 1 {
		c.sendRollback()
		return
	}
	j.afterRollback(c, now)
}

// afterRollback retries the failed transaction with the same values, or
// counts it failed, as client.transaction does.
func (j *job) afterRollback(c *loopClient, now time.Time) {
	overLimit := c.limit > 0 && now.Sub(c.txStart) > c.limit
	if (c.maxTries > 0 && c.try >= c.maxTries) || overLimit {
		c.local.Add(kindTxn, cntFailures, 1)
		c.local.Add(kindStmt(c.failAt), cntFailures, 1)
		if c.try > 1 {
			c.local.Add(kindTxn, cntRetried, 1)
		}
		c.done++
		c.state = stIdle
		j.next(c, now)
		return
	}
	c.local.Add(kindTxn, cntRetries, 1)
	c.local.Add(kindStmt(c.failAt), cntRetries, 1)
	c.try++
	c.send(0, now)
}

// finish ends the client; err is why, nil when its work is done.
func (c *loopClient) finish(err error) {
	if c.state == stFinished {
		return
	}
	c.state, c.err = stFinished, err
}

// close says goodbye (Terminate) and closes the socket.
func (c *loopClient) close() {
	if c.fd < 0 {
		return
	}
	_, _ = unix.Write(c.fd, []byte{'X', 0, 0, 0, 4})
	_ = unix.Close(c.fd)
	c.fd = -1
}

// runLoops hijacks every client's socket and drives them in opts.Jobs
// loops. It reports false, having touched nothing, when a connection is not
// a plain socket (TLS): the caller then uses the goroutine path.
func runLoops(ctx context.Context, clients []*client, opts RunOptions, start, deadline time.Time) ([]error, bool, error) {
	for _, c := range clients {
		switch c.conn.Conn().(type) {
		case *net.TCPConn, *net.UnixConn:
		default:
			return nil, false, nil
		}
	}
	loops := make([]*loopClient, len(clients))
	for i, c := range clients {
		fd, err := hijackSocket(ctx, c.conn)
		if err != nil || fd < 0 {
			for _, l := range loops[:i] {
				l.close()
			}
			if err == nil {
				err = errors.New("connection is not a plain socket")
			}
			return nil, true, fmt.Errorf("taking over connection %d: %w", i, err)
		}
		loops[i] = newLoopClient(i, fd, c)
	}
	defer func() {
		for _, l := range loops {
			l.close()
		}
	}()
	jobs := make([]*job, opts.Jobs)
	for i := range jobs {
		jobs[i] = &job{opts: opts, start: start, deadline: deadline, rawPoll: runtime.GOMAXPROCS(0) > opts.Jobs}
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
