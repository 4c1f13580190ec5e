package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
