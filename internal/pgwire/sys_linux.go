//go:build linux

package pgwire

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// A poll loop's system calls, made without telling the Go scheduler
// (RawSyscall): reads and writes are non-blocking and short. A blocking
// ppoll with raw set keeps its thread's P on purpose: announcing every
// poll as a blocking syscall makes sysmon wake every 20µs to hand the P
// off, which doubled the context switches per transaction compared with
// pgbench. The scheduler's preemption signal still interrupts it (EINTR),
// so garbage collection never waits long. Callers pass raw only when every
// loop has a P of its own; otherwise the ordinary, scheduler-aware ppoll,
// so that no loop starves another.

// Read reads from a non-blocking fd; an interrupted read is retried.
func Read(fd int, p []byte) (int, Errno) {
	for {
		n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if e != EINTR {
			return int(n), e
		}
	}
}

// Write writes to a non-blocking fd; an interrupted write is retried.
func Write(fd int, p []byte) (int, Errno) {
	for {
		n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if e != EINTR {
			return int(n), e
		}
	}
}

// Poll waits for fds for at most us microseconds; raw says without telling
// the scheduler.
func Poll(fds []unix.PollFd, us int64, raw bool) error {
	ts := unix.NsecToTimespec(max(us, 0) * 1000)
	return ppoll(fds, &ts, raw)
}

// PollUntilReady is Poll without a timeout, as pgbench polls when no
// client waits for the clock: a timeout costs the kernel a timer armed
// and cancelled, and the time left written back, on every call. A raw
// poll still ends within 10-20 ms when nothing comes: the runtime's
// preemption signal interrupts it (EINTR).
func PollUntilReady(fds []unix.PollFd, raw bool) error { return ppoll(fds, nil, raw) }

func ppoll(fds []unix.PollFd, ts *unix.Timespec, raw bool) error {
	if !raw {
		_, err := unix.Ppoll(fds, ts, nil)
		return err
	}
	var p unsafe.Pointer
	if len(fds) > 0 {
		p = unsafe.Pointer(&fds[0])
	}
	_, _, e := unix.RawSyscall6(unix.SYS_PPOLL, uintptr(p), uintptr(len(fds)), uintptr(unsafe.Pointer(ts)), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
