package pgbench

import (
	"context"

	"github.com/pgoltp/pgoltp/internal/pgbench/lang"
)

// pipelineCommand runs \startpipeline, \syncpipeline and \endpipeline:
// between them SQL commands are sent without waiting, and \endpipeline
// reads every result.
func (c *client) pipelineCommand(_ context.Context, si, ci int, cmd *lang.Command) outcome {
	switch cmd.Meta {
	case lang.MetaStartPipeline:
		if c.e.mode == lang.QuerySimple {
			return c.failed(nil, "startpipeline", "cannot use pipeline mode with the simple query protocol")
		}
		if c.pipeline {
			return c.failed(nil, "startpipeline", "already in pipeline mode")
		}
		if c.e.mode == lang.QueryPrepared {
			c.preparePipeline(si, ci)
		}
		c.pipeline = true
	case lang.MetaSyncPipeline:
		if !c.pipeline {
			return c.failed(nil, "syncpipeline", "not in pipeline mode")
		}
		c.conn.sync()
		if err := c.conn.flush(); err != nil {
			return c.endPipeline(si, ci, err)
		}
	case lang.MetaEndPipeline:
		if !c.pipeline {
			return c.failed(nil, "endpipeline", "not in pipeline mode")
		}
		c.conn.sync()
		err := c.conn.flush()
		if err == nil {
			err = c.conn.drainErr()
		}
		return c.endPipeline(si, ci, err)
	}
	return succeeded
}

// preparePipeline prepares the SQL commands of the pipeline that starts
// at command ci before entering it, as pgbench's prepareCommandsInPipeline.
func (c *client) preparePipeline(si, ci int) {
	for i, cmd := range c.e.scripts[si].Commands[ci+1:] {
		if cmd.Meta == lang.MetaEndPipeline {
			return
		}
		if cmd.IsSQL() {
			c.prepare(si, ci+1+i, cmd)
		}
	}
}

// pipelineSQL queues an SQL command in the open pipeline.
func (c *client) pipelineSQL(si, ci int, cmd *lang.Command) outcome {
	switch cmd.ResultSet {
	case lang.MetaGset:
		return c.failed(nil, "gset", "\\gset is not allowed in pipeline mode")
	case lang.MetaAset:
		return c.failed(nil, "aset", "\\aset is not allowed in pipeline mode")
	}
	if c.e.mode == lang.QueryExtended {
		c.conn.extended(cmd.ParamSQL, "", c.bind(si, ci, cmd))
	} else {
		c.conn.extended("", c.e.cmds[si][ci].name, c.bind(si, ci, cmd))
	}
	return succeeded
}

// endPipeline leaves the pipeline; err, its first error, decides the
// outcome, as it aborts the rest of the pipeline.
func (c *client) endPipeline(si, ci int, err error) outcome {
	c.pipeline = false
	if err == nil {
		return succeeded
	}
	if out, retryable := pgErrorOutcome(err); retryable {
		if c.e.o.VerboseErrors {
			c.e.printf("%s: client %d got an error in command %d (SQL) of script %d; %s\n", progName, c.id, ci, si, errorText(err))
		}
		return out
	}
	// pgbench reads each command's results on its own: the query is its first
	c.e.printf("%s: error: client %d script %d aborted in command %d query 0: %s\n", progName, c.id, si, ci, errorText(err))
	return aborted
}
