package cluster

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// TestStandbyDirClaimedUnderTheLabsRules: a standby's directory that pgoltp
// did not make (no marker, no creating record) is refused, never wiped; a
// symlink is refused; a marked one left by an interrupted create is removed
// to be made again (issue 31).
func TestStandbyDirClaimedUnderTheLabsRules(t *testing.T) {
	lab := newLab(t)
	if err := os.MkdirAll(lab, 0o755); err != nil {
		t.Fatal(err)
	}
	u, err := resolveServerUser("")
	if err != nil {
		t.Fatal(err)
	}
	n := (&Cluster{Lab: lab, user: u}).node(Standby{Name: "standby1", Port: 1})
	if err := os.Mkdir(n.DataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	theirs := filepath.Join(n.DataDir, "PG_VERSION")
	if err := os.WriteFile(theirs, []byte("16\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = n.claimStandbyDir()
	if problem.ExitCode(err) != problem.ExitBadInput || !strings.Contains(err.Error(), "pgoltp did not create it") {
		t.Fatalf("unmarked standby directory: %v, want refused as bad input", err)
	}
	if _, err := os.Stat(theirs); err != nil {
		t.Fatalf("the refused directory was touched: %v", err)
	}
	if err := os.WriteFile(markerPath(n.DataDir), []byte("created by pgoltp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := n.claimStandbyDir(); err != nil {
		t.Fatalf("marked standby directory of an interrupted create: %v", err)
	}
	if _, err := os.Lstat(n.DataDir); !os.IsNotExist(err) {
		t.Fatalf("the interrupted create's directory is still there: %v", err)
	}
	if err := os.Symlink(t.TempDir(), n.DataDir); err != nil {
		t.Fatal(err)
	}
	if err := n.claimStandbyDir(); problem.ExitCode(err) != problem.ExitBadInput || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("symlinked standby directory: %v, want refused", err)
	}
}

// TestStandbyWithoutBaseBackupProgram: a build without pg_basebackup (the
// downloaded ones) and no installed one of its major or newer is one line,
// exit 2, naming what to install.
func TestStandbyWithoutBaseBackupProgram(t *testing.T) {
	c := &Cluster{BinDir: t.TempDir(), Major: 99}
	_, err := c.baseBackupProgram()
	if problem.ExitCode(err) != problem.ExitBadInput || !strings.Contains(err.Error(), "postgresql-client-99") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("no pg_basebackup: %v, want one line of bad input", err)
	}
}

// TestStandbyOfPostgreSQL10Streams makes a standby of a PostgreSQL 10
// cluster (a downloaded build, copied by a newer installed pg_basebackup):
// its recovery.conf is pgoltp's, which a PostgreSQL 10 walreceiver takes
// (pg_basebackup -R of a newer client writes options it refuses).
func TestStandbyOfPostgreSQL10Streams(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads PostgreSQL 10 if it is not cached")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := Up(ctx, Options{Lab: newLab(t), Major: 10})
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	t.Cleanup(func() { c.Destroy(context.Background()) })
	if _, err := c.baseBackupProgram(); err != nil {
		t.Skipf("no pg_basebackup for PostgreSQL 10 here: %v", err)
	}
	if c, err = Up(ctx, Options{Lab: c.Lab, Standbys: 1, Sync: SyncQuorum}); err != nil {
		t.Fatalf("Up with a standby: %v", err)
	}
	st := c.Status(ctx, "postgres")
	if len(st.Nodes) != 2 || st.Nodes[1].State != "streaming" || st.Nodes[1].SyncState != "quorum" {
		t.Fatalf("nodes %+v, want standby1 streaming in quorum", st.Nodes)
	}
	if got := query(t, c.Nodes()[0], "SELECT pg_is_in_recovery()::text"); got != "true" {
		t.Errorf("standby1 in recovery = %s", got)
	}
}

// TestStatusShowsEachNode: 'cluster status' shows each node's role, the
// primary's WAL position, each standby's LSNs and lag as the primary sees
// them and as the standby itself says, and with the primary stopped the
// standby's own LSNs still (issue 31).
func TestStatusShowsEachNode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := Up(ctx, Options{Lab: newLab(t), Standbys: 1, Sync: SyncFirst})
	if err != nil {
		t.Fatalf("Up with a standby: %v", err)
	}
	t.Cleanup(func() { c.Destroy(context.Background()) })
	st := c.Status(ctx, "postgres")
	if len(st.Nodes) != 2 {
		t.Fatalf("nodes %+v, want the primary and standby1", st.Nodes)
	}
	p, s := st.Nodes[0], st.Nodes[1]
	if p.Role != "primary" || p.CurrentLSN == "" {
		t.Errorf("primary %+v, want its role and current LSN", p)
	}
	if s.Role != "standby" || s.State != "streaming" || s.SyncState != "sync" || s.SentLSN == "" || s.ReplayLSN == "" ||
		s.OwnReceiveLSN == "" || s.OwnReplayLSN == "" || s.LagBytes < 0 {
		t.Errorf("standby1 %+v, want streaming, sync, the LSNs from both sides and a lag", s)
	}
	var text strings.Builder
	if err := st.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"lag bytes", "received", "replayed", "standby1", s.OwnReplayLSN, p.CurrentLSN} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("status text lacks %q:\n%s", want, text.String())
		}
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	down := c.Status(ctx, "postgres").Nodes[1]
	if down.Role != "standby" || down.SentLSN != "" || down.OwnReceiveLSN == "" || down.OwnReplayLSN == "" {
		t.Errorf("standby1 with the primary stopped %+v, want its own LSNs only", down)
	}
}
