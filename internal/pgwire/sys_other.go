//go:build !linux

package pgwire

import (
	"errors"

	"golang.org/x/sys/unix"
)

// A poll loop's system calls where there is no ppoll: poll(2) in
// milliseconds, through the scheduler.

// Read reads from a non-blocking fd; an interrupted read is retried.
func Read(fd int, p []byte) (int, Errno) {
	for {
		n, err := unix.Read(fd, p)
		if e := errnoOf(err); e != EINTR {
			return max(n, 0), e
		}
	}
}

// Write writes to a non-blocking fd; an interrupted write is retried.
func Write(fd int, p []byte) (int, Errno) {
	for {
		n, err := unix.Write(fd, p)
		if e := errnoOf(err); e != EINTR {
			return max(n, 0), e
		}
	}
}

func errnoOf(err error) Errno {
	var e unix.Errno
	if errors.As(err, &e) {
		return e
	}
	return 0
}

// Poll waits for fds for at most us microseconds (rounded up to a
// millisecond).
func Poll(fds []unix.PollFd, us int64, _ bool) error {
	_, err := unix.Poll(fds, int((max(us, 0)+999)/1000))
	return err
}

// PollUntilReady is Poll without a timeout.
func PollUntilReady(fds []unix.PollFd, _ bool) error {
	_, err := unix.Poll(fds, -1)
	return err
}
