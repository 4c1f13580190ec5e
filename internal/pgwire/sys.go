package pgwire

import "golang.org/x/sys/unix"

// What a poll loop's system calls share on every system; the calls
// themselves are in sys_linux.go (raw, ppoll) and sys_other.go (poll).

// Errno is a system call's error number, 0 for none.
type Errno = unix.Errno

const (
	EINTR   = unix.EINTR
	EAGAIN  = unix.EAGAIN
	POLLIN  = unix.POLLIN
	POLLOUT = unix.POLLOUT
)

// Close closes fd.
func Close(fd int) { _ = unix.Close(fd) }
