//go:build linux

package tpcb

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// System calls of the event loop, made without telling the Go scheduler
// (RawSyscall). The reads and writes are non-blocking and short. The ppoll
// does block, but a job owns its thread's P on purpose: announcing every
// poll as a blocking syscall makes sysmon wake every 20µs to hand the P
// off, which doubled the context switches per transaction compared with
// pgbench. A blocked ppoll is still interrupted by the scheduler's
// preemption signal (EINTR), so garbage collection never waits long, and
// the CLI gives the runtime one P more than there are jobs for the rest.
// With fewer Ps than that (a library caller's GOMAXPROCS), the loop uses
// the ordinary, scheduler-aware ppoll so that no job starves another.

func rawRead(fd int, p []byte) (int, unix.Errno) {
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), e
}

func rawWrite(fd int, p []byte) (int, unix.Errno) {
	n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), e
}

func rawPpoll(fds []unix.PollFd, ts *unix.Timespec) unix.Errno {
	_, _, e := unix.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), uintptr(len(fds)),
		uintptr(unsafe.Pointer(ts)), 0, 0, 0)
	return e
}
