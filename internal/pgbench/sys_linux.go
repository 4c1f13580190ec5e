//go:build linux

package pgbench

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The loop's system calls, made without telling the Go scheduler
// (RawSyscall), as tpcb's event loop makes them: reads and writes are
// non-blocking and short; a blocking ppoll keeps its thread's P on purpose
// (announcing it makes sysmon hand the P off every 20µs, doubling the
// context switches per transaction). The scheduler's preemption signal
// still interrupts it (EINTR). Only used when there is a P to spare for
// every loop and one more (loop.go); otherwise the ordinary ppoll.

type sysErrno = unix.Errno

const (
	eintr   = unix.EINTR
	eagain  = unix.EAGAIN
	pollIn  = unix.POLLIN
	pollOut = unix.POLLOUT
)

func sysRead(fd int, p []byte) (int, sysErrno) {
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), e
}

func sysWrite(fd int, p []byte) (int, sysErrno) {
	n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), e
}

func sysClose(fd int) { _ = unix.Close(fd) }

// poll waits for fds for at most us microseconds; raw says without telling
// the scheduler.
func poll(fds []unix.PollFd, us int64, raw bool) error {
	ts := unix.NsecToTimespec(max(us, 0) * 1000)
	if !raw {
		_, err := unix.Ppoll(fds, &ts, nil)
		return err
	}
	var p unsafe.Pointer
	if len(fds) > 0 {
		p = unsafe.Pointer(&fds[0])
	}
	_, _, e := unix.RawSyscall6(unix.SYS_PPOLL, uintptr(p), uintptr(len(fds)), uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
