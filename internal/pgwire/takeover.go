package pgwire

import (
	"context"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/sys/unix"
)

// Socket is a connection taken over from pgconn.
type Socket struct {
	// FD is the socket, a non-blocking close-on-exec duplicate that the Go
	// runtime does not poll; -1 when the connection is not a plain TCP or
	// Unix socket (TLS), and Conn is then the connection, read and written
	// blocking.
	FD       int
	Conn     net.Conn
	TxStatus byte // of the last ReadyForQuery pgconn read
	Cancel   Canceller
}

// PlainSocket says whether pc's connection is a plain TCP or Unix socket,
// which TakeOver hands over as an FD.
func PlainSocket(pc *pgconn.PgConn) bool {
	switch pc.Conn().(type) {
	case *net.TCPConn, *net.UnixConn:
		return true
	}
	return false
}

// TakeOver hijacks an open, idle pgconn connection: pc is unusable after.
func TakeOver(ctx context.Context, pc *pgconn.PgConn) (Socket, error) {
	s := Socket{FD: -1}
	if err := pc.SyncConn(ctx); err != nil {
		return s, err
	}
	if PlainSocket(pc) {
		raw, err := pc.Conn().(syscall.Conn).SyscallConn()
		if err != nil {
			return s, err
		}
		var dupErr error
		if err := raw.Control(func(f uintptr) { s.FD, dupErr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
			return s, err
		}
		if dupErr != nil {
			return s, dupErr
		}
	}
	hc, err := pc.Hijack()
	if err != nil {
		if s.FD >= 0 {
			unix.Close(s.FD)
		}
		return Socket{FD: -1}, err
	}
	s.TxStatus = hc.TxStatus
	// As pgconn.CancelRequest: the peer's address, except for Unix sockets,
	// whose peer name is the server's relative bind path.
	addr := hc.Conn.RemoteAddr()
	s.Cancel = Canceller{network: addr.Network(), address: addr.String(), dial: hc.Config.DialFunc, pid: hc.PID, secretKey: hc.SecretKey}
	if s.Cancel.network == "unix" {
		s.Cancel.network, s.Cancel.address = pgconn.NetworkAddress(hc.Config.Host, hc.Config.Port)
	}
	if s.FD < 0 {
		s.Conn = hc.Conn
		return s, nil
	}
	_ = hc.Conn.Close() // the duplicate keeps the socket
	if err := unix.SetNonblock(s.FD, true); err != nil {
		unix.Close(s.FD)
		return Socket{FD: -1}, err
	}
	return s, nil
}
