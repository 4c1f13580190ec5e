package pgbench

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/pgbench/lang"
)

// pipelineCommand runs \startpipeline, \syncpipeline and \endpipeline:
// between them SQL commands are sent without waiting, and \endpipeline
// reads every result.
func (c *client) pipelineCommand(ctx context.Context, si, ci int, cmd *lang.Command) outcome {
	switch cmd.Meta {
	case lang.MetaStartPipeline:
		if c.e.mode == lang.QuerySimple {
			return c.failed(nil, "startpipeline", "cannot use pipeline mode with the simple query protocol")
		}
		if c.pipeline != nil {
			return c.failed(nil, "startpipeline", "already in pipeline mode")
		}
		if c.e.mode == lang.QueryPrepared {
			c.preparePipeline(ctx, si, ci)
		}
		c.pipeline = c.conn.PgConn().StartPipeline(ctx)
		c.piped = 0
	case lang.MetaSyncPipeline:
		if c.pipeline == nil {
			return c.failed(nil, "syncpipeline", "not in pipeline mode")
		}
		c.pipeline.SendPipelineSync()
	case lang.MetaEndPipeline:
		if c.pipeline == nil {
			return c.failed(nil, "endpipeline", "not in pipeline mode")
		}
		return c.endPipeline(si, ci)
	}
	return succeeded
}

// preparePipeline prepares the SQL commands of the pipeline that starts
// at command ci before entering it, as pgbench's prepareCommandsInPipeline.
func (c *client) preparePipeline(ctx context.Context, si, ci int) {
	for _, cmd := range c.e.scripts[si].Commands[ci+1:] {
		if cmd.Meta == lang.MetaEndPipeline {
			return
		}
		if cmd.IsSQL() {
			c.prepare(ctx, cmd)
		}
	}
}

// pipelineSQL queues an SQL command in the open pipeline.
func (c *client) pipelineSQL(ctx context.Context, si, ci int, cmd *lang.Command) outcome {
	switch cmd.ResultSet {
	case lang.MetaGset:
		return c.failed(nil, "gset", "\\gset is not allowed in pipeline mode")
	case lang.MetaAset:
		return c.failed(nil, "aset", "\\aset is not allowed in pipeline mode")
	}
	params := c.bind(cmd)
	if c.e.mode == lang.QueryExtended {
		c.pipeline.SendQueryParams(cmd.ParamSQL, params, nil, nil, nil)
	} else {
		c.pipeline.SendQueryPrepared(c.e.prepName[cmd], params, nil, nil)
	}
	c.piped++
	return succeeded
}

// endPipeline syncs and reads every result of the pipeline; the first
// error decides the outcome, as it aborts the rest of the pipeline.
func (c *client) endPipeline(si, ci int) outcome {
	p := c.pipeline
	c.pipeline = nil
	var first error
	if err := p.Sync(); err != nil {
		first = err
	}
	for first == nil {
		res, err := p.GetResults()
		if err != nil {
			first = err
			break
		}
		if res == nil {
			break
		}
		if rr, ok := res.(*pgconn.ResultReader); ok {
			for rr.NextRow() {
			}
			if _, err := rr.Close(); err != nil {
				first = err
				break
			}
		}
	}
	if err := p.Close(); first == nil {
		first = err
	}
	if first == nil {
		return succeeded
	}
	var pg *pgconn.PgError
	if errors.As(first, &pg) {
		if out, retryable := pgErrorOutcome(pg); retryable {
			if c.e.o.VerboseErrors {
				c.e.printf("%s: client %d got an error in command %d (SQL) of script %d; %s\n", progName, c.id, ci, si, errorText(first))
			}
			return out
		}
	}
	// pgbench reads each command's results on its own: the query is its first
	c.e.printf("%s: error: client %d script %d aborted in command %d query 0: %s\n", progName, c.id, si, ci, errorText(first))
	return aborted
}
