package command

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// forwardInOrder copies a program's standard output and error, read from
// their pipes, to out and errOut in the order the program wrote them, as
// far as the pipes can tell: whatever is waiting on stderr goes before the
// next read of stdout. The two copying goroutines os/exec starts for writers
// that are not files let `pgbench -P`'s last progress line (stderr) land
// after its summary (stdout) under --record, which pgbench never does on a
// terminal. It returns when both pipes are closed by every writer.
func forwardInOrder(stdout, stderr *os.File, out, errOut io.Writer) error {
	files := [2]*os.File{stderr, stdout}
	dst := [2]io.Writer{errOut, out}
	fds := []unix.PollFd{{Fd: int32(stderr.Fd()), Events: unix.POLLIN}, {Fd: int32(stdout.Fd()), Events: unix.POLLIN}}
	buf := make([]byte, 32<<10)
	readable := func(i int) bool {
		if fds[i].Fd < 0 {
			return false
		}
		one := []unix.PollFd{{Fd: fds[i].Fd, Events: unix.POLLIN}}
		n, err := unix.Poll(one, 0)
		return err == nil && n > 0
	}
	copyOnce := func(i int) {
		n, err := files[i].Read(buf)
		if n > 0 {
			_, _ = dst[i].Write(buf[:n])
		}
		if err != nil { // EOF: every writer closed it
			fds[i].Fd = -1
		}
	}
	for fds[0].Fd >= 0 || fds[1].Fd >= 0 {
		if _, err := unix.Poll(fds, -1); err != nil && !errors.Is(err, unix.EINTR) {
			return err
		}
		for readable(0) {
			copyOnce(0)
		}
		if readable(1) {
			copyOnce(1)
		}
	}
	return nil
}

// startInOrder starts cmd with its output forwarded in order to out and
// errOut (forwardInOrder). wait waits for the program, then for the
// forwarding, at most cmd.WaitDelay longer: a background process the program
// left behind may hold its pipes open, and what it writes after that is
// dropped (out and errOut are read once wait returns).
func startInOrder(cmd *exec.Cmd, out, errOut io.Writer) (wait func() error, err error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close() // the program has its copies
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, err
	}
	g := &gate{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = forwardInOrder(outR, errR, g.writer(out), g.writer(errOut))
		outR.Close()
		errR.Close()
	}()
	return func() error {
		err := cmd.Wait()
		select {
		case <-done:
		case <-time.After(cmd.WaitDelay):
			g.close()
		}
		return err
	}, nil
}

// gate passes writes through until it is closed, then drops them.
type gate struct {
	mu     sync.Mutex
	closed bool
}

func (g *gate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

func (g *gate) writer(w io.Writer) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.closed {
			return len(p), nil
		}
		return w.Write(p)
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
