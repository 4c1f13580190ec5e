package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestClusterReplicaFlagsBadInput: bad --standbys, --sync, --pooler, --via
// and experiment --failover give one line naming the flag, exit 2, before
// any cluster is made (issue 31).
func TestClusterReplicaFlagsBadInput(t *testing.T) {
	global.dsn = "" // an earlier test of the package may have left one
	t.Cleanup(func() { global.dsn = "" })
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"cluster", "up", "--standbys", "-1", "--sync", "", "--pooler", ""}, []string{"--standbys -1", "0 to 8"}},
		{[]string{"cluster", "up", "--standbys", "1", "--sync", "maybe", "--pooler", ""}, []string{"--sync maybe", "quorum, first or off"}},
		{[]string{"cluster", "up", "--standbys", "1", "--sync", "", "--pooler", "pgpool"}, []string{"--pooler pgpool", "pgbouncer"}},
		{[]string{"tpcb", "run", "--via", "sideways"}, []string{"--via sideways"}},
		{[]string{"--dsn", "host=/nonexistent", "tpcb", "run", "--via", "pooler"}, []string{"--via pooler", "--dsn"}},
		{[]string{"--dsn", "host=/nonexistent", "cluster", "up", "--standbys", "1", "--sync", "", "--pooler", ""}, []string{"drop --dsn"}},
		{[]string{"experiment", "--failover", "--sync", "maybe"}, []string{"--sync maybe", "remote_write"}},
		{[]string{"experiment", "--failover", "--sync", "on", "--crash"}, []string{"--crash and --failover"}},
		{[]string{"experiment", "--failover", "--sync", "on", "--crash=false", "--kill", "sideways"}, []string{"--kill sideways", "--kill network"}},
		{[]string{"--dsn", "host=/nonexistent", "experiment", "--failover", "--sync", "on", "--crash=false", "--kill", "primary"}, []string{"drop --dsn"}},
	} {
		err := execute(t, c.args...)
		wantBadInput(t, err, c.want, "\n")
		global.dsn = ""
	}
}

// TestClusterUpSyncWithoutStandbys: --sync on a lab whose cluster has no
// standbys is found only once the cluster is open, and is still one line
// naming the flags, exit 2.
func TestClusterUpSyncWithoutStandbys(t *testing.T) {
	lab := pgtest.LabDir(t)
	t.Cleanup(func() {
		if c, err := cluster.Open(lab); err == nil {
			c.Destroy(context.Background())
		}
	})
	var out bytes.Buffer
	rootCmd.SetOut(&out)
	rootCmd.SetErr(&out)
	rootCmd.SetArgs([]string{"--lab", lab, "cluster", "up", "--standbys", "0", "--sync", "first", "--pooler", ""})
	err := rootCmd.ExecuteContext(context.Background())
	wantBadInput(t, err, []string{"--sync first needs standbys", "--standbys 1"}, "\n")
}
