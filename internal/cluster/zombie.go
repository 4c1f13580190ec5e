package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// A postmaster killed with SIGKILL stays a zombie until its parent reaps it,
// and a parent that never does (a container's init that is not one) keeps it
// forever. A zombie still answers kill(pid, 0): pg_ctl calls the server
// running, and a new postmaster refuses the data directory its pid file
// names. pgoltp takes a zombie for what it is, a dead server.

// postmasterPID reads the pid on the first line of the data directory's
// postmaster.pid.
func postmasterPID(dataDir string) (int, error) {
	return lockPID(filepath.Join(dataDir, "postmaster.pid"))
}

// lockPID reads the pid on the first line of one of PostgreSQL's lock files.
func lockPID(path string) (int, error) {
	f, err := openNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	b := make([]byte, 64)
	n, _ := f.Read(b)
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b[:n]), "\n", 2)[0]))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("no pid in %s", path)
	}
	return pid, nil
}

// isZombie reports whether pid is a process that has exited and waits to be
// reaped (state Z in /proc/PID/stat).
func isZombie(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// The command name may hold spaces and parentheses: the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && strings.HasPrefix(strings.TrimLeft(s[i+1:], " "), "Z")
}

// alive reports whether pid is a process that still runs.
func alive(pid int) bool { return kill(pid, 0) == nil && !isZombie(pid) }

// processesIn lists the running processes whose working directory is dir:
// every process of a PostgreSQL server works in its data directory.
func processesIn(dir string) []int {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir && alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// clearDeadPostmaster lets a server whose postmaster is a zombie start again:
// it waits a little for the zombie to be reaped and for the processes of
// the dead server to exit (they notice the postmaster's death), then removes
// the stale postmaster.pid. Processes of the dead server that keep running
// are not signalled: the error names them and what to do.
func (c *Cluster) clearDeadPostmaster(ctx context.Context) error {
	pid, err := postmasterPID(c.DataDir)
	if err != nil || !isZombie(pid) {
		return nil
	}
	var left []int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if !isZombie(pid) {
			return nil // reaped: postmaster.pid names no process, which PostgreSQL handles
		}
		if left = processesIn(c.DataDir); len(left) == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	if len(left) > 0 {
		return problem.BadInput(fmt.Sprintf("stop them (kill %s), then run the command again", joinPIDs(left)),
			"the postmaster (pid %d) of %s was killed and is a zombie, but processes of that server still run (pids %s)",
			pid, c.DataDir, joinPIDs(left))
	}
	// Its lock files: postmaster.pid, and the socket's, which name its pid.
	locks, _ := filepath.Glob(filepath.Join(c.SocketDir, ".s.PGSQL.*.lock"))
	for _, lock := range append(locks, filepath.Join(c.DataDir, "postmaster.pid")) {
		if p, err := lockPID(lock); err != nil || p != pid {
			continue
		}
		if err := os.Remove(lock); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("removing the dead postmaster's lock file: %w", err)
		}
	}
	return nil
}

func joinPIDs(pids []int) string {
	s := make([]string, len(pids))
	for i, p := range pids {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, " ")
}
