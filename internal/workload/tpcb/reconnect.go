package tpcb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/driver"
)

// reconnectFor is how long a client keeps trying to get its connection
// back before it gives up (and aborts, as a client does on an error).
const reconnectFor = 5 * time.Minute

// reconnector brings clients whose connection was lost (a server restart,
// a network blip, a terminated backend) back, as TPC-C's pool does: it
// records the outage, reconnects with backoff and lets the client go on
// with its own bookkeeping, as a goroutine (client.loop) whichever engine it
// started in. The transaction in flight when the connection went is in
// doubt: its commit may have happened without the answer arriving.
type reconnector struct {
	ctx      context.Context
	cfgs     clientConfigs
	deadline time.Time // end of -T; zero = none

	mu      sync.Mutex
	outages []driver.Outage
	inDoubt int64

	wg     sync.WaitGroup // clients handed over by the event loops
	handed []bool         // by client: handed over, its error is in errs
	errs   []error
}

func newReconnector(ctx context.Context, cfgs clientConfigs, clients int, deadline time.Time) *reconnector {
	return &reconnector{ctx: ctx, cfgs: cfgs, deadline: deadline, handed: make([]bool, clients), errs: make([]error, clients)}
}

// handOver takes client i, which an event loop just finished with a lost
// connection, and goes on with it in a goroutine of its own.
func (r *reconnector) handOver(i int, c *client, b *book, lost error) {
	r.handed[i] = true // written before wg.Wait, read after it
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.errs[i] = r.resume(i, c, b, lost)
	}()
}

// resume is the goroutine engine's loop with recovery: while err is a lost
// connection, reconnect and run the client on. It returns the client's
// final error (nil when its work is done or the run ended).
func (r *reconnector) resume(i int, c *client, b *book, err error) error {
	for r.ctx.Err() == nil && (connectionLost(err) || (err != nil && c.conn.IsClosed())) {
		b.lost()
		o := driver.Outage{Conn: i, Lost: time.Now(), Error: oneLine(err.Error())}
		restored, attempts, rerr := r.reconnect(i, c)
		o.Attempts = attempts
		if restored {
			o.Restored = time.Now()
		}
		r.mu.Lock()
		r.outages = append(r.outages, o)
		r.inDoubt++
		r.mu.Unlock()
		if !restored {
			if rerr != nil {
				return fmt.Errorf("connection lost (%v) and not restored within %s: %w", err, reconnectFor, rerr)
			}
			return nil // the run ended during the outage
		}
		err = c.loop(r.ctx, b)
	}
	return err
}

// reconnect tries to connect client c (number i) again with a growing pause, until it
// works, the run ends (ctx or -T) or reconnectFor has passed.
func (r *reconnector) reconnect(i int, c *client) (ok bool, attempts int, err error) {
	giveUp := time.Now().Add(reconnectFor)
	pause := 100 * time.Millisecond
	for {
		if !r.deadline.IsZero() && !time.Now().Before(r.deadline) {
			return false, attempts, nil
		}
		attempts++
		cctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
		err = c.reconnect(cctx, r.cfgs.of(i))
		cancel()
		if err == nil {
			return true, attempts, nil
		}
		if r.ctx.Err() != nil {
			return false, attempts, nil
		}
		if time.Now().After(giveUp) {
			return false, attempts, err
		}
		if !driver.Sleep(r.ctx, pause) {
			return false, attempts, nil
		}
		pause = min(2*pause, 2*time.Second)
	}
}

// result puts the outages and in-doubt transactions into res.
func (r *reconnector) result(res *RunResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res.Outages, res.InDoubt = r.outages, r.inDoubt
}

// reconnect replaces the client's lost connection with a new one, prepared
// like the first.
func (c *client) reconnect(ctx context.Context, cfg *pgconn.Config) error {
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	var descs []*pgconn.StatementDescription
	if c.proto == ProtocolPrepared {
		for i, s := range c.def.stmts {
			d, err := conn.Prepare(ctx, preparedName(i), c.sqls[i], nil)
			if err != nil {
				_ = conn.Close(context.Background())
				return fmt.Errorf("preparing %s: %w", s.text(), err)
			}
			descs = append(descs, d)
		}
	}
	if old := c.conn; old != nil && !old.IsClosed() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = old.Close(cctx)
		cancel()
	}
	c.conn, c.descs = conn, descs
	return nil
}

// connectionLost recognizes a lost connection: what the driver package
// recognizes, and the end of the stream that the event loop (and pgconn, on
// a killed server) reports.
func connectionLost(err error) bool {
	return driver.ConnectionLost(err) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

func oneLine(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if r == '\n' || r == '\r' || r == '\t' {
			r = ' '
		}
		out = append(out, r)
	}
	return string(out)
}
