package cluster

import (
	"os"
	"path/filepath"
	"testing"
)

// TestUserBinaries: --pg-bin takes the machine's installation as it is,
// and refuses, as bad input, a directory without a server, another major
// than --pg, and programs others could have replaced.
func TestUserBinaries(t *testing.T) {
	sys, ok := DefaultBinaries()
	if !ok {
		t.Skip("no PostgreSQL installed on this machine")
	}
	b, err := userBinaries(sys.Dir, 0)
	if err != nil || b.Dir != sys.Dir || b.Major != sys.Major {
		t.Fatalf("--pg-bin %s: %+v %v, want the installation %+v", sys.Dir, b, err, sys)
	}
	wantBadInput(t, func() error { _, err := userBinaries(t.TempDir(), 0); return err }(), "initdb")
	wantBadInput(t, func() error { _, err := userBinaries(sys.Dir, sys.Major-1); return err }(), "not")

	// A copy others may write to: pgoltp would run what anybody put there.
	dir := t.TempDir()
	for _, tool := range []string{"initdb", "pg_ctl", "postgres"} {
		if err := os.Symlink(filepath.Join(sys.Dir, tool), filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	wantBadInput(t, func() error { _, err := userBinaries(dir, 0); return err }(), "other users may write")
}
