package pgbench

import (
	"context"
	"errors"
	"regexp"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/pgbench/lang"
)

// sql sends an SQL command in the run's query mode and reads its results
// as pgbench's readCommandResponse.
func (c *client) sql(ctx context.Context, si, ci int, cmd *lang.Command) outcome {
	if c.pipeline {
		return c.pipelineSQL(si, ci, cmd)
	}
	if c.e.cmds[si][ci].copy {
		// pgbench reads COPY's result and gives up
		c.e.printf("%s: error: COPY is not supported in pgbench, aborting\n", progName)
		return aborted
	}
	switch c.e.mode {
	case lang.QuerySimple:
		c.sqlText = lang.AppendSubstituted(c.sqlText[:0], cmd.SQL, c.vars.AppendText)
		if c.e.o.Debug {
			c.e.debugf("client %d sending %s", c.id, c.sqlText)
		}
		c.conn.query(c.sqlText)
	case lang.QueryExtended:
		if c.e.o.Debug {
			c.e.debugf("client %d sending %s", c.id, cmd.ParamSQL)
		}
		c.conn.extended(cmd.ParamSQL, "", c.bind(si, ci, cmd))
		c.conn.sync()
	default:
		name := c.prepare(si, ci, cmd)
		if c.e.o.Debug {
			c.e.debugf("client %d sending %s", c.id, name)
		}
		c.conn.extended("", name, c.bind(si, ci, cmd))
		c.conn.sync()
	}
	if c.e.o.Debug {
		c.e.debugf("client %d receiving", c.id)
	}
	q, err := c.readResults(si, ci, cmd)
	text := cmd.ParamSQL
	if err != nil && c.e.mode == lang.QuerySimple {
		text = string(c.sqlText)
	}
	return c.finishSQL(err, si, ci, q, cmd, text)
}

// readResults reads the results of every query of the command, storing
// \aset's; q is the number of results read before an error.
func (c *client) readResults(si, ci int, cmd *lang.Command) (q int, err error) {
	if err := c.conn.flush(); err != nil {
		return 0, err
	}
	var r *lang.QueryResult
	if cmd.ResultSet != lang.MetaNone {
		r = &c.result
	}
	for {
		pgErr, ready, err := c.conn.result(r)
		switch {
		case err != nil:
			return q, err
		case ready:
			return q, nil
		case pgErr != nil:
			_, _ = c.conn.drain() // a lost connection after the error: the error says why
			return q, pgErr
		}
		if cmd.ResultSet == lang.MetaAset {
			if err := cmd.StoreResult(c.vars, c.id, si, ci, q, false, *r); err != nil {
				c.e.printf("%s: error: %v\n", progName, err)
				if _, err := c.conn.drain(); err != nil {
					return q, err
				}
				return q, errReported
			}
		}
		q++
	}
}

// bind is pgbench's getQueryParams: each parameter's text, NULL when the
// variable is undefined. The slice is the client's, reused.
func (c *client) bind(si, ci int, cmd *lang.Command) [][]byte {
	c.params, c.paramText, c.paramLen = c.params[:0], c.paramText[:0], c.paramLen[:0]
	ref := c.e.cmds[si][ci].ref
	for i, name := range cmd.Params {
		n := len(c.paramText)
		v := c.variable(ref+i, name)
		if v == nil {
			c.params = append(c.params, nil)
			continue
		}
		c.paramText = v.AppendText(c.paramText)
		c.params = append(c.params, emptyParam) // sliced below
		c.paramLen = append(c.paramLen, len(c.paramText)-n)
	}
	// the buffer may have moved as it grew: slice the values once it is whole
	off, k := 0, 0
	for i, p := range c.params {
		if p != nil {
			n := c.paramLen[k]
			if n > 0 {
				c.params[i] = c.paramText[off : off+n : off+n]
			}
			off, k = off+n, k+1
		}
	}
	return c.params
}

// emptyParam is an empty text value, not NULL.
var emptyParam = []byte{}

// prepare prepares cmd on the client's connection the first time it runs
// there (pgbench's prepareCommand); a failure is reported and the
// execution then fails on its own.
func (c *client) prepare(si, ci int, cmd *lang.Command) string {
	info := &c.e.cmds[si][ci]
	name := info.name
	if c.prepared[info.n] {
		return name
	}
	c.prepared[info.n] = true
	if c.e.o.Debug {
		c.e.debugf("client %d preparing %s", c.id, name)
	}
	if err := c.conn.prepare(name, cmd.ParamSQL); err != nil {
		c.e.printf("%s: error: %s\n", progName, queryErrorText(err, cmd.ParamSQL))
	}
	return name
}

// copyData matches a COPY from standard input or to standard output,
// which pgbench refuses once the server starts it.
var copyData = regexp.MustCompile(`(?is)^\s*copy\b.*\b(stdin|stdout)\b`)

// errReported is an error already printed: the client aborts.
var errReported = errors.New("reported")

// finishSQL ends an SQL command: \gset's store from the last query, or
// the error's outcome (a retryable failure, or the client's abort).
func (c *client) finishSQL(err error, si, ci, q int, cmd *lang.Command, text string) outcome {
	if err == nil {
		if cmd.ResultSet == lang.MetaGset {
			err = cmd.StoreResult(c.vars, c.id, si, ci, max(q-1, 0), true, c.result)
			if err != nil {
				c.e.printf("%s: error: %v\n", progName, err)
				return aborted
			}
		}
		return succeeded
	}
	if c.connLost(err) {
		return aborted
	}
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		if errors.Is(err, errReported) {
			return aborted
		}
		c.err = err
		c.e.printf("%s: error: client %d script %d aborted in command %d query %d: %s\n", progName, c.id, si, ci, q, errorText(err))
		return aborted
	}
	if out, retryable := pgErrorOutcome(pg); retryable {
		if c.e.o.VerboseErrors {
			c.e.printf("%s: client %d got an error in command %d (SQL) of script %d; %s\n", progName, c.id, ci, si, queryErrorText(err, text))
		}
		return out
	}
	c.err = err
	c.e.printf("%s: error: client %d script %d aborted in command %d query %d: %s\n", progName, c.id, si, ci, q, queryErrorText(err, text))
	return aborted
}
