package e2e_test

import (
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/cluster"
)

// TestClusterUpPgBin: 'cluster up --pg-bin DIR' runs the lab on the
// installation in DIR (here the machine's own), status names it, and a
// lab on other binaries or a directory without a server is refused with
// one line and exit 2.
func TestClusterUpPgBin(t *testing.T) {
	t.Parallel() // its own lab
	sys, ok := cluster.DefaultBinaries()
	if !ok {
		t.Skip("no PostgreSQL installed on this machine")
	}
	lab := labDir(t)
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "cluster", "up", "--lab", lab, "--pg-bin", t.TempDir()), "--pg-bin", "initdb")
	if r := runPgoltp(t, 5*time.Minute, "cluster", "up", "--lab", lab, "--pg-bin", sys.Dir); r.code != 0 {
		t.Fatalf("cluster up --pg-bin %s: exit %d: %s", sys.Dir, r.code, r.stderr)
	}
	t.Cleanup(func() { runPgoltp(t, time.Minute, "cluster", "destroy", "--lab", lab) })
	if r := runPgoltp(t, time.Minute, "cluster", "status", "--lab", lab); !strings.Contains(r.stdout, sys.Dir) {
		t.Errorf("cluster status does not name the --pg-bin installation %s:\n%s", sys.Dir, r.stdout)
	}
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "cluster", "up", "--lab", lab, "--pg-bin", "/usr/bin"), "runs on", sys.Dir)
}
