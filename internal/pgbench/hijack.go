package pgbench

import (
	"context"
	"net"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"golang.org/x/sys/unix"
)

// takeOver hijacks an open, idle pgconn connection for the run engine: its
// socket as a non-blocking close-on-exec duplicate that the Go runtime does
// not poll, or, when the connection is not a plain TCP or Unix socket
// (TLS), the net.Conn itself, read and written blocking.
func takeOver(ctx context.Context, pc *pgconn.PgConn) (*conn, error) {
	if err := pc.SyncConn(ctx); err != nil {
		return nil, err
	}
	fd := -1
	switch nc := pc.Conn().(type) {
	case *net.TCPConn, *net.UnixConn:
		raw, err := nc.(syscall.Conn).SyscallConn()
		if err != nil {
			return nil, err
		}
		var dupErr error
		if err := raw.Control(func(f uintptr) { fd, dupErr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
			return nil, err
		}
		if dupErr != nil {
			return nil, dupErr
		}
	}
	hc, err := pc.Hijack()
	if err != nil {
		if fd >= 0 {
			unix.Close(fd)
		}
		return nil, err
	}
	c := &conn{fd: fd, txStatus: hc.TxStatus, in: make([]byte, 0, 8192), out: make([]byte, 0, 512)}
	// As pgconn.CancelRequest: the peer's address, except for Unix sockets,
	// whose peer name is the server's relative bind path.
	addr := hc.Conn.RemoteAddr()
	c.cancel = canceller{network: addr.Network(), address: addr.String(), dial: hc.Config.DialFunc, pid: hc.PID, secretKey: hc.SecretKey}
	if c.cancel.network == "unix" {
		c.cancel.network, c.cancel.address = pgconn.NetworkAddress(hc.Config.Host, hc.Config.Port)
	}
	if fd < 0 {
		// Its reads block the loop: an interruption cancels the statement
		// and ends the read, as pgconn's context watching did.
		c.nc = hc.Conn
		c.unwatch = context.AfterFunc(ctx, func() {
			c.cancel.send(ctx)
			_ = c.nc.SetDeadline(time.Unix(1, 0))
		})
		return c, nil
	}
	_ = hc.Conn.Close() // the duplicate keeps the socket
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return c, nil
}

// canceller sends a CancelRequest for a taken-over connection's backend,
// as pgconn's CancelRequest does for its own.
type canceller struct {
	network, address string
	dial             pgconn.DialFunc
	pid              uint32
	secretKey        []byte
}

// send asks the server to cancel what the backend runs; best effort, as
// the run is ending either way.
func (k *canceller) send(ctx context.Context) {
	if k.dial == nil {
		return
	}
	ctx, stop := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer stop()
	nc, err := k.dial(ctx, k.network, k.address)
	if err != nil {
		return
	}
	defer nc.Close()
	deadline, _ := ctx.Deadline()
	_ = nc.SetDeadline(deadline)
	buf, err := (&pgproto3.CancelRequest{ProcessID: k.pid, SecretKey: k.secretKey}).Encode(nil)
	if err != nil {
		return
	}
	if _, err := nc.Write(buf); err == nil {
		_, _ = nc.Read(buf[:1]) // the server closes when it has taken the request
	}
}
