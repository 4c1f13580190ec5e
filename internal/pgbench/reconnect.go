package pgbench

import (
	"context"

	"github.com/jackc/pgx/v5/pgconn"
)

// Drive.Reconnect: a client whose connection is lost is given to the
// caller, which reconnects in a goroutine of its own while the client
// sleeps in its loop (the loop's other clients go on), then takes the new
// connection over and runs on.

// connLost says the query's error lost the connection and Drive will try to
// bring it back: the client then ends its transaction (in doubt) without a
// message. The server's last word (a FATAL) is the error kept.
func (c *client) connLost(err error) bool {
	if c.e.drive == nil || c.e.drive.Reconnect == nil || c.interrupted || c.conn == nil || c.conn.txStatus != 0 {
		return false
	}
	c.lostErr = err
	return true
}

// reconnectPoll is how often a client in an outage looks whether its new
// connection is there (microseconds).
const reconnectPoll = 10000

// reconnect replaces the lost connection by Drive.Reconnect's. False: the
// run ended meanwhile (c.err nil), it failed (c.err), or it was interrupted.
func (c *client) reconnect(ctx context.Context) bool {
	lost := c.lostErr
	c.lostErr = nil
	c.disconnect()
	var pc *pgconn.PgConn
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		pc, err = c.e.drive.Reconnect(ctx, c.id, lost)
	}()
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		default:
			if c.sleepUntil(c.e.nowUs()+reconnectPoll, false) != nil {
				<-done // the caller ends on ctx too
				if pc != nil {
					_ = pc.Close(context.Background())
				}
				return false
			}
		}
	}
	if err != nil || pc == nil {
		c.err = err
		return false
	}
	if err := c.adopt(ctx, pc); err != nil {
		_ = pc.Close(context.Background())
		c.err = err
		return false
	}
	return true
}
