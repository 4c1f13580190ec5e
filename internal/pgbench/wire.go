package pgbench

import (
	"encoding/binary"
	"errors"
	"io"
	"net"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/pgbench/lang"
	"github.com/pgoltp/pgoltp/internal/pgwire"
)

// conn is a client's connection as the run engine drives it: opened by
// pgconn, then taken over (hijack.go) and spoken to by hand, as libpq
// speaks for pgbench: a statement is one write of reused bytes and, most
// often, one read, and waiting for the server yields to the client's
// thread loop (loop.go) instead of parking a goroutine. Only the messages
// of a benchmark's statements are written: Query, or Parse, Bind,
// Describe, Execute and Sync with text parameters of unspecified types
// (what PQsendQueryParams and PQsendQueryPrepared send).
type conn struct {
	fd       int      // the socket, non-blocking; -1 when nc is used
	nc       net.Conn // a connection that is not a plain socket (TLS): blocking
	in       []byte   // received; in[rd:] is not handled yet
	rd       int
	out      []byte // being written
	txStatus byte   // of the last ReadyForQuery; 0 once the connection is lost
	// justSent: written to since the last read. The answer is seldom in
	// yet, so receive waits for the socket before it reads: reading first
	// failed (EAGAIN) 0.8 times per select-only transaction, as pgbench's
	// do, and skipping it saves 3-7% of the driver's CPU (bench/RESULTS.md).
	justSent bool
	syncs    int // Syncs (and Queries) sent whose ReadyForQuery is not read
	cancel   pgwire.Canceller
	// wait blocks until the socket is ready for events (the loop's yield);
	// it fails when the run is interrupted.
	wait   func(events int16) (int16, error)
	notice func(*pgconn.Notice)
	// unwatch stops watching the run's context (nc only)
	unwatch func() bool
}

// errLost is a connection the server closed without a word.
var errLost = errors.New("server closed the connection unexpectedly\n\tThis probably means the server terminated abnormally\n\tbefore or while processing the request.")

// Frontend messages, appended to c.out (pgwire); a Query or Sync expects
// a ReadyForQuery.

func (c *conn) query(sql []byte) {
	c.out = pgwire.AppendQuery(c.out, sql)
	c.syncs++
}

func (c *conn) parse(name, sql string) { c.out = pgwire.AppendParse(c.out, name, sql) }

func (c *conn) sync() {
	c.out = pgwire.AppendSync(c.out)
	c.syncs++
}

// extended appends PQsendQueryParams's messages (stmt == "": sql parsed
// into the unnamed statement) or PQsendQueryPrepared's (statement stmt),
// without the Sync.
func (c *conn) extended(sql, stmt string, params [][]byte) {
	c.out = pgwire.AppendExtended(c.out, sql, stmt, params)
}

// flush writes c.out whole. While the socket is full it reads what the
// server sends, so that a long pipeline cannot deadlock on both sides'
// buffers.
func (c *conn) flush() error {
	b := c.out
	defer func() { c.out = c.out[:0] }()
	if c.nc != nil {
		_, err := c.nc.Write(b)
		return c.lost(err)
	}
	for len(b) > 0 {
		n, errno := pgwire.Write(c.fd, b)
		switch {
		case errno == pgwire.EAGAIN:
			revents, err := c.wait(pgwire.POLLIN | pgwire.POLLOUT)
			if err != nil {
				return err
			}
			if revents&pgwire.POLLIN != 0 {
				if err := c.readSome(); err != nil && err != errWouldBlock {
					return err
				}
			}
			continue
		case errno != 0:
			return c.lost(errno)
		}
		b = b[n:]
	}
	c.justSent = true
	return nil
}

var errWouldBlock = errors.New("would block")

// readSome appends what the socket holds to c.in: errWouldBlock when it
// holds nothing.
func (c *conn) readSome() error {
	if c.rd > 0 && c.rd == len(c.in) {
		c.in, c.rd = c.in[:0], 0
	}
	if cap(c.in)-len(c.in) < 4096 && c.rd > 0 {
		c.in, c.rd = c.in[:copy(c.in, c.in[c.rd:])], 0
	}
	c.in = pgwire.Room(c.in, 4096)
	var n int
	if c.nc != nil {
		var err error
		if n, err = c.nc.Read(c.in[len(c.in):cap(c.in)]); n == 0 && err != nil {
			return c.lost(err)
		}
	} else {
		var errno pgwire.Errno
		n, errno = pgwire.Read(c.fd, c.in[len(c.in):cap(c.in)])
		switch {
		case errno == pgwire.EAGAIN:
			return errWouldBlock
		case errno != 0:
			return c.lost(errno)
		case n == 0:
			return c.lost(io.EOF)
		}
	}
	c.in = c.in[:len(c.in)+n]
	return nil
}

// lost marks the connection lost on a read or write error.
func (c *conn) lost(err error) error {
	if err == nil {
		return nil
	}
	c.txStatus = 0
	return errLost
}

// receive returns the next backend message; body is valid until the next
// call.
func (c *conn) receive() (byte, []byte, error) {
	for {
		if typ, body, size, ok := pgwire.NextMessage(c.in[c.rd:]); ok {
			c.rd += size
			return typ, body, nil
		}
		err := errWouldBlock // just sent: wait before reading
		if !c.justSent || c.nc != nil {
			err = c.readSome()
		}
		c.justSent = false
		if err == errWouldBlock {
			if _, err = c.wait(pgwire.POLLIN); err != nil {
				return 0, nil, err
			}
			continue
		}
		if err != nil {
			return 0, nil, err
		}
	}
}

// result reads the answer to the next query up to its end: pgErr is the
// server's error for it; ready says a ReadyForQuery came instead (no
// query left before it). Into r, when given, go the columns, the row count
// and the text of the last row; a ReadyForQuery leaves r as it was.
func (c *conn) result(r *lang.QueryResult) (pgErr *pgconn.PgError, ready bool, err error) {
	fresh := false // r is reset by the query's first message, not by ReadyForQuery
	for {
		typ, body, err := c.receive()
		if err != nil {
			return nil, false, err
		}
		if r != nil && !fresh && typ != 'Z' && typ != 'N' {
			r.HasTuples, r.Rows, r.LastRow = false, 0, r.LastRow[:0]
			fresh = true
		}
		switch typ {
		case 'T':
			if r != nil {
				r.HasTuples = true
				r.Columns = rowDescription(body, r.Columns)
			}
		case 'D':
			if r != nil {
				r.Rows++
				dataRow(body, r)
			}
		case 'C', 'I':
			return nil, false, nil
		case 'E':
			return pgwire.DecodeError(body), false, nil
		case 'Z':
			c.syncs--
			if len(body) > 0 {
				c.txStatus = body[0]
			}
			return nil, true, nil
		case 'N':
			if c.notice != nil {
				c.notice((*pgconn.Notice)(pgwire.DecodeError(body)))
			}
		case 'G': // COPY FROM STDIN: refused, as pgbench gives up on it
			c.out = pgwire.AppendCopyFail(c.out, "COPY is not supported in pgbench")
			if err := c.flush(); err != nil {
				return nil, false, err
			}
		}
	}
}

// drain reads every answer up to the last ReadyForQuery expected; first
// is the first server error among them.
func (c *conn) drain() (first *pgconn.PgError, err error) {
	for c.syncs > 0 {
		pgErr, _, err := c.result(nil)
		if err != nil {
			return first, err
		}
		if first == nil {
			first = pgErr
		}
	}
	return first, nil
}

// drainErr drains the answers and returns the first server error, or the
// connection's: a server that ends a session says why (FATAL) first.
func (c *conn) drainErr() error {
	pgErr, err := c.drain()
	if pgErr != nil {
		return pgErr
	}
	return err
}

// prepare prepares sql as statement name (PQprepare).
func (c *conn) prepare(name, sql string) error {
	c.parse(name, sql)
	c.sync()
	if err := c.flush(); err != nil {
		return err
	}
	return c.drainErr()
}

// exec runs sql by the simple protocol, ignoring its results (ROLLBACK).
func (c *conn) exec(sql []byte) error {
	c.query(sql)
	if err := c.flush(); err != nil {
		return err
	}
	return c.drainErr()
}

// rowDescription returns the columns' names; it reuses the names in cols
// (the last query's) where they are the same, so as not to allocate them
// again for every query.
func rowDescription(body []byte, cols []string) []string {
	prev := cols
	cols = cols[:0]
	if len(body) < 2 {
		return cols
	}
	n := int(binary.BigEndian.Uint16(body))
	body = body[2:]
	for i := 0; i < n; i++ {
		end := 0
		for end < len(body) && body[end] != 0 {
			end++
		}
		if i < len(prev) && prev[i] == string(body[:end]) {
			cols = append(cols, prev[i])
		} else {
			cols = append(cols, string(body[:end]))
		}
		if end+19 > len(body) {
			break
		}
		body = body[end+19:]
	}
	return cols
}

// dataRow sets r's last row to a row's values as text, NULL as empty (as
// PQgetvalue), copied into r.RowText: first the text, then (as it may have
// moved while it grew) the values sliced from it.
func dataRow(body []byte, r *lang.QueryResult) {
	r.LastRow, r.RowText = r.LastRow[:0], r.RowText[:0]
	for v, rest, ok := firstValue(body); ok; v, rest, ok = nextValue(rest) {
		r.RowText = append(r.RowText, v...)
	}
	off := 0
	for v, rest, ok := firstValue(body); ok; v, rest, ok = nextValue(rest) {
		r.LastRow = append(r.LastRow, r.RowText[off:off+len(v):off+len(v)])
		off += len(v)
	}
}

// firstValue and nextValue walk a DataRow's values (NULL as empty); rest
// is what follows v.
func firstValue(body []byte) (v, rest []byte, ok bool) {
	if len(body) < 2 {
		return nil, nil, false
	}
	return nextValue(body[2:])
}

func nextValue(body []byte) (v, rest []byte, ok bool) {
	if len(body) < 4 {
		return nil, nil, false
	}
	size := int(int32(binary.BigEndian.Uint32(body)))
	body = body[4:]
	size = min(max(size, 0), len(body)) // NULL: -1
	return body[:size], body[size:], true
}

// close says goodbye (Terminate) and closes the socket.
func (c *conn) close() {
	c.out = pgwire.AppendTerminate(c.out[:0])
	if c.nc != nil {
		c.unwatch()
		_, _ = c.nc.Write(c.out)
		_ = c.nc.Close()
		return
	}
	if c.fd >= 0 {
		_, _ = pgwire.Write(c.fd, c.out)
		pgwire.Close(c.fd)
		c.fd = -1
	}
}
