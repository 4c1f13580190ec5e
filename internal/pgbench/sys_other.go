//go:build !linux

package pgbench

import (
	"errors"

	"golang.org/x/sys/unix"
)

// The loop's system calls where there is no ppoll: poll(2) in
// milliseconds, through the scheduler.

type sysErrno = unix.Errno

const (
	eintr   = unix.EINTR
	eagain  = unix.EAGAIN
	pollIn  = unix.POLLIN
	pollOut = unix.POLLOUT
)

func sysRead(fd int, p []byte) (int, sysErrno) {
	n, err := unix.Read(fd, p)
	return max(n, 0), errnoOf(err)
}

func sysWrite(fd int, p []byte) (int, sysErrno) {
	n, err := unix.Write(fd, p)
	return max(n, 0), errnoOf(err)
}

func errnoOf(err error) sysErrno {
	var e unix.Errno
	if errors.As(err, &e) {
		return e
	}
	return 0
}

func sysClose(fd int) { _ = unix.Close(fd) }

func poll(fds []unix.PollFd, us int64, _ bool) error {
	_, err := unix.Poll(fds, int((max(us, 0)+999)/1000))
	return err
}
