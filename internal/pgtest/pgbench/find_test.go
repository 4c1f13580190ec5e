package pgbench_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/pgtest/pgbench"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// TestFindsPgbenchOffPATH: with nothing on PATH, the compatibility tests
// still find pgbench in the test cluster's bin directory (or, for a
// downloaded build without one, next to an installed server), and a run
// without an explicit binary finds one next to an installed server.
func TestFindsPgbenchOffPATH(t *testing.T) {
	c := pgtest.Cluster(t)
	t.Setenv("PATH", t.TempDir())
	got, own := pgtest.Pgbench(t), filepath.Join(c.BinDir, "pgbench")
	if _, err := os.Stat(own); err == nil {
		if got != own {
			t.Errorf("pgtest.Pgbench = %s, want the cluster's %s", got, own)
		}
	} else if filepath.Base(got) != "pgbench" {
		// Downloaded builds ship the server without pgbench: then one next
		// to an installed server must do.
		t.Errorf("pgtest.Pgbench = %q with nothing on PATH and none in %s", got, c.BinDir)
	}
	run, err := pgbench.Run(context.Background(), pgtest.NewDatabase(t), pgbench.Options{Seconds: 1, Clients: 1})
	if err != nil {
		t.Fatalf("pgbench off PATH: %v", err)
	}
	if len(run.Latency) == 0 {
		t.Error("the run measured nothing")
	}
	// A directory given first wins: it is the cluster's, matching the server.
	dir := t.TempDir()
	fake := filepath.Join(dir, "pgbench")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := pgbench.Find(dir); err != nil || got != fake {
		t.Errorf("Find(%s) = %s, %v", dir, got, err)
	}
}
