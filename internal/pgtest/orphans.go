package pgtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/prometheus/procfs"

	"github.com/pgoltp/pgoltp/internal/cluster"
)

// ownerFile, in every directory pgtest makes, names the test process that
// made it: its pid and start time, so that a recycled pid is not taken for
// it. A test binary killed by go test's timeout never runs its cleanup, and
// the servers it started would run on; the next test binary reaps them.
const ownerFile = ".pgtest-owner"

// markOwner writes this process into dir's owner file.
func markOwner(dir string) error {
	return os.WriteFile(filepath.Join(dir, ownerFile), []byte(processID(os.Getpid())), 0o644)
}

// processID is "pid start-time" for a live process ("pid" where /proc has
// no start time), "" when there is no such process.
func processID(pid int) string {
	p, err := procfs.NewProc(pid)
	if err != nil {
		if syscall.Kill(pid, 0) == nil {
			return fmt.Sprint(pid)
		}
		return ""
	}
	st, err := p.Stat()
	if err != nil {
		return fmt.Sprint(pid)
	}
	return fmt.Sprintf("%d %d", pid, st.Starttime)
}

// reapOrphans destroys the managed clusters of the pgtest directories in
// base whose owner process is gone, removes those directories, and returns
// the ones that held a cluster. Directories without an owner file (another
// process's, or one being made right now) are never touched.
func reapOrphans(base string) []string {
	entries, err := os.ReadDir(base)
	if err != nil {
		return nil
	}
	var reaped []string
	for _, e := range entries {
		dir := filepath.Join(base, e.Name())
		owner, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil || !e.IsDir() {
			continue
		}
		var pid int
		if _, err := fmt.Sscan(string(owner), &pid); err != nil || processID(pid) == string(owner) {
			continue
		}
		ok, held := true, false
		for _, lab := range []string{dir, filepath.Join(dir, "lab")} {
			if !cluster.Exists(lab) {
				continue
			}
			held = true
			c, err := cluster.Open(lab)
			if err == nil {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				err = c.Destroy(ctx)
				cancel()
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "pgtest: the cluster in %s outlived its test process %s and could not be destroyed: %v\n", lab, owner, err)
				ok = false
			}
		}
		if ok && os.RemoveAll(dir) == nil && held {
			reaped = append(reaped, dir)
		}
	}
	return reaped
}
