package pgbench

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/pgwire"
)

// takeOver hijacks an open, idle pgconn connection for the run engine
// (pgwire.TakeOver): its socket, or, when the connection is not a plain
// TCP or Unix socket (TLS), the net.Conn itself, read and written blocking.
func takeOver(ctx context.Context, pc *pgconn.PgConn) (*conn, error) {
	s, err := pgwire.TakeOver(ctx, pc)
	if err != nil {
		return nil, err
	}
	c := &conn{fd: s.FD, txStatus: s.TxStatus, cancel: s.Cancel, in: make([]byte, 0, 8192), out: make([]byte, 0, 512)}
	if s.FD < 0 {
		// Its reads block the loop: an interruption cancels the statement
		// and ends the read, as pgconn's context watching did.
		c.nc = s.Conn
		c.unwatch = context.AfterFunc(ctx, func() {
			_ = c.cancel.Send(ctx)
			_ = c.nc.SetDeadline(time.Unix(1, 0))
		})
	}
	return c, nil
}
