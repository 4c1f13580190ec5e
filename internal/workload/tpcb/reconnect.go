package tpcb

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/driver"
)

// reconnectFor is how long a client keeps trying to get its connection
// back before it gives up (and aborts, as a client does on an error).
const reconnectFor = 5 * time.Minute

// reconnector brings clients whose connection was lost (a server restart,
// a network blip, a terminated backend) back, as TPC-C's pool does: the
// engine hands it the client (pgbench.Drive.Reconnect), it records the
// outage, reconnects with backoff and gives the engine the new connection,
// on which the client goes on. The transaction in flight when the
// connection went is in doubt: its commit may have happened without the
// answer arriving.
type reconnector struct {
	cfgs     clientConfigs
	deadline time.Time // end of -T; zero = none

	mu      sync.Mutex
	outages []driver.Outage
	inDoubt int64
}

func newReconnector(cfgs clientConfigs, deadline time.Time) *reconnector {
	return &reconnector{cfgs: cfgs, deadline: deadline}
}

// reconnect is client i's new connection after lost: nil when the run
// ended first, an error when it could not be had within reconnectFor.
func (r *reconnector) reconnect(ctx context.Context, i int, lost error) (*pgconn.PgConn, error) {
	o := driver.Outage{Conn: i, Lost: time.Now(), Error: oneLine(lost.Error())}
	conn, attempts, err := r.dial(ctx, i)
	o.Attempts = attempts
	if conn != nil {
		o.Restored = time.Now()
	}
	r.mu.Lock()
	r.outages = append(r.outages, o)
	r.inDoubt++
	r.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("connection lost (%v) and not restored within %s: %w", oneLine(lost.Error()), reconnectFor, err)
	}
	return conn, nil
}

// dial tries to connect client i again with a growing pause, until it
// works, the run ends (ctx or -T: no connection, no error) or reconnectFor
// has passed.
func (r *reconnector) dial(ctx context.Context, i int) (conn *pgconn.PgConn, attempts int, err error) {
	giveUp := time.Now().Add(reconnectFor)
	pause := 100 * time.Millisecond
	for {
		if !r.deadline.IsZero() && !time.Now().Before(r.deadline) {
			return nil, attempts, nil
		}
		attempts++
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		conn, err = pgconn.ConnectConfig(cctx, r.cfgs.of(i))
		cancel()
		if err == nil {
			return conn, attempts, nil
		}
		if ctx.Err() != nil {
			return nil, attempts, nil
		}
		if time.Now().After(giveUp) {
			return nil, attempts, err
		}
		if !driver.Sleep(ctx, pause) {
			return nil, attempts, nil
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
