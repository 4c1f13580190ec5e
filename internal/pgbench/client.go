package pgbench

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/pgbench/lang"
)

// client is pgbench's CState: one connection running transactions, with its
// variables and its expression generator.
type client struct {
	e         *engine
	id        int
	thread    *thread
	vars      *lang.Vars
	rng       *lang.PRNG
	conn      *conn
	prepared  []bool      // by cmdInfo.n: prepared on this connection
	refs      []*lang.Var // the variable each reference found (engine.nRefs), nil until then
	script    int         // the script running, for debug()
	command   int         // the command running, for debug()
	params    [][]byte    // -M extended and prepared: the values bound
	paramText []byte      // their text, end to end
	paramLen  []int       // the defined values' lengths
	sqlText   []byte      // -M simple: the statement with its variables substituted
	pipeline  bool        // in a \startpipeline
	result    lang.QueryResult
	txCount   int64 // transactions run (for -l)

	// the client as a coroutine of its thread's loop (loop.go)
	yield       func(waiting) bool
	revents     int16
	interrupted bool

	mu      sync.Mutex // guards what progress reports read
	stats   Stats
	scripts []ScriptStats
	late    int64
	connUs  int64 // -C: time spent connecting
	aborted bool

	// Drive's hooks (drive.go); nil for pgbench's own runs
	sink     Sink
	schedule Schedule
	err      error // why the client aborted, for Drive
	failedAt int   // the SQL statement (cmdInfo.n) of a transaction's last failure
	lostErr  error // the connection was lost, and Drive.Reconnect may bring it back
}

func newClient(e *engine, id int, vars *lang.Vars, rng *lang.PRNG) *client {
	c := &client{e: e, id: id, vars: vars, rng: rng, prepared: make([]bool, e.nSQL), refs: make([]*lang.Var, e.nRefs)}
	c.scripts = make([]ScriptStats, len(e.scripts))
	for i, s := range e.scripts {
		c.scripts[i].Commands = make([]CommandStats, len(s.Commands))
		for j, cmd := range s.Commands {
			c.scripts[i].Commands[j].FirstLine = cmd.FirstLine
		}
	}
	return c
}

// lang.Env for expressions.
func (c *client) RNG() *lang.PRNG { return c.rng }

// Lookup is a variable's value for an expression, found through the
// reference's cache.
func (c *client) Lookup(ref *lang.Expr) (lang.Value, error) {
	if v := c.variable(ref.Ref-1, ref.Var); v != nil {
		return v.Value(ref.Var)
	}
	return c.vars.Lookup(ref.Var) // its error
}

// variable is the variable named name that reference ref (-1: none) found:
// variables are never removed, so each reference looks its name up until
// the variable exists, and then never again.
func (c *client) variable(ref int, name string) *lang.Var {
	if ref < 0 {
		return c.vars.Find(name)
	}
	v := c.refs[ref]
	if v == nil {
		v = c.vars.Find(name)
		c.refs[ref] = v
	}
	return v
}

// set is \set's assignment, through the command's reference (ref).
func (c *client) set(ref int, cmd *lang.Command, val lang.Value) error {
	if v := c.refs[ref]; v != nil {
		v.Set(val)
		return nil
	}
	if err := c.vars.Set(cmd.Argv[0], cmd.Var, val); err != nil {
		return err
	}
	c.refs[ref] = c.vars.Find(cmd.Var)
	return nil
}

func (c *client) Debug(v lang.Value) {
	c.e.printf("%s\n", lang.DebugLine(c.script, c.command+1, v))
}

// connect opens the client's connection and takes it over for the loop;
// it reports failure itself.
func (c *client) connect(ctx context.Context) error {
	pc, err := pgx.ConnectConfig(ctx, c.e.cfg)
	if err != nil {
		c.e.printf("%s: error: %s\n", progName, connectErrorText(err))
		return err
	}
	if err := c.adopt(ctx, pc.PgConn()); err != nil {
		pc.Close(ctx)
		c.e.printf("%s: error: %s\n", progName, err)
		return err
	}
	return nil
}

// adopt takes an open connection over for the client's loop.
func (c *client) adopt(ctx context.Context, pc *pgconn.PgConn) error {
	conn, err := takeOver(ctx, pc)
	if err != nil {
		return err
	}
	conn.notice = func(n *pgconn.Notice) { printNotice(c.e.log, n) }
	conn.wait = func(events int16) (int16, error) { return c.block(waiting{fd: conn.fd, events: events}) }
	c.conn = conn
	clear(c.prepared)
	return nil
}

func (c *client) disconnect() {
	if c.conn != nil {
		c.conn.close()
		c.conn = nil
	}
}

// outcome is how a transaction's try ended.
type outcome uint8

const (
	succeeded outcome = iota
	serializationFailure
	deadlockFailure
	aborted
)

// run is the client's life: transactions until -t's count, -T's end or an
// abort.
func (c *client) run(ctx context.Context) {
	defer c.disconnect()
	o := c.e.o
	for n := 0; c.more(n); n++ {
		si := c.choose()
		if c.e.o.Debug {
			c.e.debugf("client %d executing script \"%s\"", c.id, c.e.o.Scripts[si].Desc)
		}
		scheduled := int64(0)
		if c.paced() {
			var skip, finished bool
			for scheduled, skip, finished = c.throttle(); skip; scheduled, skip, finished = c.throttle() {
				c.skip(si, scheduled)
				if n++; !c.more(n) {
					return
				}
			}
			if finished {
				return
			}
		}
		if o.Connect && !c.timedConnect(ctx) {
			c.abort()
			return
		}
		if !c.transaction(ctx, si, scheduled) {
			if c.lostErr != nil {
				if c.reconnect(ctx) {
					continue // the transaction in flight is in doubt, and counts as run
				}
				if c.err == nil && !c.interrupted {
					return // the run ended during the outage
				}
			}
			c.abort()
			return
		}
		if o.Connect {
			t0 := time.Now()
			c.disconnect()
			c.addConnTime(time.Since(t0))
		}
	}
}

// timedConnect is -C's connection before each transaction.
func (c *client) timedConnect(ctx context.Context) bool {
	t0 := time.Now()
	if c.connect(ctx) != nil {
		c.e.printf("%s: error: client %d aborted while establishing connection\n", progName, c.id)
		return false
	}
	c.addConnTime(time.Since(t0))
	return true
}

func (c *client) addConnTime(d time.Duration) {
	c.mu.Lock()
	c.connUs += d.Microseconds()
	c.mu.Unlock()
}

func (c *client) abort() {
	c.mu.Lock()
	c.aborted = true
	c.mu.Unlock()
	c.e.aborted.Store(true)
	if c.e.o.ExitOnAbort {
		c.e.stop.Store(true)
	}
}

// pgError classifies a query's error as pgbench's getSQLErrorStatus.
func pgErrorOutcome(err error) (outcome, bool) {
	pg, ok := err.(*pgconn.PgError)
	if !ok {
		return aborted, false
	}
	switch pg.Code {
	case "40001":
		return serializationFailure, true
	case "40P01":
		return deadlockFailure, true
	}
	return aborted, false
}
