package tpcb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/metrics"
)

// Protocol is how statements are sent, as pgbench's -M/--protocol.
type Protocol string

const (
	ProtocolSimple   Protocol = "simple"   // one Query message, values inlined
	ProtocolExtended Protocol = "extended" // Parse/Bind/Execute of an unnamed statement every time
	ProtocolPrepared Protocol = "prepared" // named statements prepared once per connection
)

// client is one pgbench client: one connection executing the script over
// and over. It owns its random source, parameter buffers and metrics.Local,
// so the hot path shares nothing with other clients.
type client struct {
	conn  *pgconn.PgConn
	proto Protocol
	def   *scriptDef
	scale space
	rng   *rand.Rand
	local *metrics.Local

	vals   [numVars]int64
	text   [numVars][]byte // vals as text parameters
	args   [][][]byte      // per statement, its parameters
	descs  []*pgconn.StatementDescription
	sqls   []string // $n form, for extended
	simple []byte   // query buffer for the simple protocol
	failAt int      // statement index of the last error
}

// Recorder kinds: the transaction, then one per statement, then the
// schedule lag (--rate).
const kindTxn = 0

func kindStmt(i int) int { return 1 + i }

// Counters recorded per kind. On the transaction kind: failed transactions,
// total retries, transactions retried at least once, skipped, late; on a
// statement: the failures and retries that happened at it.
const (
	cntFailures = iota
	cntRetries
	cntRetried
	cntSkipped
	cntLate
)

var counterNames = []string{"failures", "retries", "retried", "skipped", "late"}

func kindNames(def *scriptDef) []string {
	k := []string{"transaction"}
	for _, s := range def.stmts {
		k = append(k, s.name)
	}
	return append(k, "schedule_lag")
}

func kindLag(def *scriptDef) int { return len(def.stmts) + 1 }

// newClient prepares a connected client for the script.
func newClient(ctx context.Context, conn *pgconn.PgConn, proto Protocol, def *scriptDef, scale space, seed uint64, local *metrics.Local) (*client, error) {
	c := &client{conn: conn, proto: proto, def: def, scale: scale, local: local,
		rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	for v := range c.text {
		c.text[v] = make([]byte, 0, 24)
	}
	c.args = make([][][]byte, len(def.stmts))
	c.sqls = make([]string, len(def.stmts))
	for i, s := range def.stmts {
		c.args[i] = make([][]byte, len(s.vars))
		c.sqls[i] = s.sql()
	}
	if proto == ProtocolPrepared {
		for i, s := range def.stmts {
			d, err := conn.Prepare(ctx, preparedName(i), c.sqls[i], nil)
			if err != nil {
				return nil, fmt.Errorf("preparing %s: %w", s.text(), err)
			}
			c.descs = append(c.descs, d)
		}
	}
	return c, nil
}

// draw sets the script's variables, as its \set commands.
func (c *client) draw() {
	drawVars(c.rng, c.scale, &c.vals, &c.text)
	for i, s := range c.def.stmts {
		for j, v := range s.vars {
			c.args[i][j] = c.text[v]
		}
	}
}

// space is what the clients draw from: the scale, and the branches of this
// process (all of them, or a part's range with --part).
type space struct {
	scale              int64
	bidFirst, bidCount int64
}

// wholeSpace draws every branch of scale, as pgbench does.
func wholeSpace(scale int64) space {
	return space{scale: scale, bidFirst: 1, bidCount: BranchesPerScale * scale}
}

// drawVars draws aid, bid, tid and delta uniformly like pgbench's random()
// and formats them as text parameters. bid is drawn from the process's
// branches: all of them, or its part's range (accounts and tellers still from
// the whole database, as pgbench draws them independently of the branch).
func drawVars(rng *rand.Rand, sp space, vals *[numVars]int64, text *[numVars][]byte) {
	vals[varAid] = 1 + rng.Int64N(AccountsPerScale*sp.scale)
	vals[varBid] = sp.bidFirst + rng.Int64N(sp.bidCount)
	vals[varTid] = 1 + rng.Int64N(TellersPerScale*sp.scale)
	vals[varDelta] = -5000 + rng.Int64N(10001)
	for v := range vals {
		text[v] = strconv.AppendInt(text[v][:0], vals[v], 10)
	}
}

// exec sends statement i and reads its result.
func (c *client) exec(ctx context.Context, i int) error {
	var rr *pgconn.ResultReader
	switch c.proto {
	case ProtocolPrepared:
		rr = c.conn.ExecStatement(ctx, c.descs[i], c.args[i], nil, nil)
	case ProtocolExtended:
		rr = c.conn.ExecParams(ctx, c.sqls[i], c.args[i], nil, nil, nil)
	default:
		c.simple = c.def.stmts[i].appendSimple(c.simple[:0], &c.vals)
		mrr := c.conn.Exec(ctx, string(c.simple))
		var err error
		for mrr.NextResult() {
			r := mrr.ResultReader()
			for r.NextRow() {
			}
			if _, e := r.Close(); e != nil && err == nil {
				err = e
			}
		}
		if e := mrr.Close(); e != nil && err == nil {
			err = e
		}
		return err
	}
	for rr.NextRow() {
	}
	_, err := rr.Close()
	return err
}

// loop runs this client's transactions, as book schedules them, until its
// count is done, the deadline passes or ctx ends.
func (c *client) loop(ctx context.Context, b *book) error {
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		due, ok := b.next(time.Now())
		if !ok {
			return nil
		}
		if b.sched != nil && !driver.SleepUntil(ctx, due) {
			return ctx.Err()
		}
		b.begin(due, time.Now())
		if err := c.transaction(ctx, b); err != nil {
			return err
		}
	}
}

// transaction draws the variables and runs the script, retrying
// serialization failures and deadlocks with the same values as b decides
// (--max-tries). A non-retryable error is returned: it ends the client, as
// in pgbench.
func (c *client) transaction(ctx context.Context, b *book) error {
	c.draw()
	for {
		err := c.once(ctx, b)
		if err == nil {
			b.committed(time.Now())
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err() // the run was cancelled, whatever the statement says
		}
		if !driver.Retryable(err) {
			return err
		}
		if err := c.rollback(ctx); err != nil {
			return err
		}
		if !b.retry(time.Now(), c.failAt) {
			return nil
		}
	}
}

// once runs the script one time; on error it says at which statement.
func (c *client) once(ctx context.Context, b *book) error {
	for i := range c.def.stmts {
		t0 := time.Now()
		if err := c.exec(ctx, i); err != nil {
			c.failAt = i
			return err
		}
		b.statement(i, time.Since(t0))
	}
	return nil
}

// rollback ends the failed transaction block (harmless when the failure
// was at END and there is no block left).
func (c *client) rollback(ctx context.Context) error {
	if len(c.def.stmts) == 1 {
		return nil
	}
	return c.conn.Exec(ctx, "ROLLBACK").Close()
}
