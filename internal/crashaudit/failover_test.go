package crashaudit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/crashaudit"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/workload/ledger"
)

// TestFailoverWithSynchronousReplicationLosesNothing kills a primary with
// one synchronous standby mid-run, promotes the standby, and proves every
// acknowledged commit is on it; afterwards the lab is back: the old primary
// is the primary, the standby cloned again and streaming (issue 31).
func TestFailoverWithSynchronousReplicationLosesNothing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := primaryAndStandby(t, ctx)
	for _, tc := range []struct{ kill, commit string }{{"primary", ""}, {"primary", "remote_write"}, {"network", ""}} {
		t.Run("kill="+tc.kill+",synchronous_commit="+tc.commit, func(t *testing.T) { failoverLosesNothing(t, ctx, c, tc.kill, tc.commit) })
	}
}

// primaryAndStandby is a new cluster in a lab of its own, a primary and one
// streaming standby with the database pgoltp, destroyed when the test ends.
func primaryAndStandby(t *testing.T, ctx context.Context) *cluster.Cluster {
	t.Helper()
	c, err := cluster.Up(ctx, cluster.Options{Lab: pgtest.LabDir(t), Standbys: 1})
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	t.Cleanup(func() { c.Destroy(context.Background()) })
	if err := c.EnsureDatabase(ctx, "pgoltp"); err != nil {
		t.Fatal(err)
	}
	return c
}

// failoverLosesNothing is one audit with synchronous replication at the
// synchronous_commit level commit ("": the server's, on), the primary
// killed or cut off (kill).
func failoverLosesNothing(t *testing.T, ctx context.Context, c *cluster.Cluster, kill, commit string) {
	a := &crashaudit.FailoverAudit{Cluster: c, Kill: kill, Database: "pgoltp", Synchronous: true, SyncCommit: commit,
		Workload: ledger.Ledger{Clients: 4, Accounts: 1000}, KillAfter: 3 * time.Second}
	rep, err := a.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Acknowledged < 10 {
		t.Fatalf("only %d commits acknowledged before the kill", rep.Acknowledged)
	}
	if rep.Lost != 0 {
		t.Fatalf("%d acknowledged commits lost with synchronous replication: %v", rep.Lost, rep.LostIDs)
	}
	if rep.Promoted != "standby1" || rep.Kill != kill || rep.WithoutPrimary <= 0 || !rep.Rebuilt || rep.SyncCommit != commit || rep.RateBefore <= 0 || rep.RateAfter <= 0 || !strings.HasPrefix(rep.Verdict, "no acknowledged commit lost") {
		t.Errorf("report: %+v", rep)
	}
	st := c.Status(ctx, "pgoltp")
	if len(st.Nodes) != 2 || st.Nodes[0].Role != "primary" || st.Nodes[1].Role != "standby" || st.Nodes[1].State != "streaming" || c.Sync != "" {
		t.Errorf("after the audit: sync %q, nodes %+v; want the lab as it was (async), the standby streaming", c.Sync, st.Nodes)
	}
}

// TestFailoverWithoutStandbyIsBadInput: the audit on a cluster without
// standbys is refused in one line, exit 2, before anything runs.
func TestFailoverWithoutStandbyIsBadInput(t *testing.T) {
	c := pgtest.Cluster(t)
	_, err := (&crashaudit.FailoverAudit{Cluster: c, Database: "postgres"}).Run(context.Background())
	if problem.ExitCode(err) != problem.ExitBadInput || !strings.Contains(err.Error(), "--standbys 1") {
		t.Fatalf("failover without a standby: %v (exit %d), want bad input", err, problem.ExitCode(err))
	}
}
