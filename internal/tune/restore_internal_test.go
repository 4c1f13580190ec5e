package tune

import (
	"context"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// claimsApplied says it applied settings but does nothing: a server whose
// restore silently failed.
type claimsApplied struct{}

func (claimsApplied) Apply(context.Context, map[string]string) (bool, error) { return false, nil }

// TestRestoreChecksValuesReadBack: a restore whose Apply reported success but
// left a different value in effect must fail (so that "settings restored" is
// never printed), and a real restore must pass the same check.
func TestRestoreChecksValuesReadBack(t *testing.T) {
	ctx := context.Background()
	conn, dsn := pgtest.Conn(t)
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "SELECT pg_reload_conf(), pg_sleep(0.2)"); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { exec("ALTER SYSTEM RESET commit_siblings") })
	// Before: set with ALTER SYSTEM, so restoring means setting it again through the server.
	exec("ALTER SYSTEM SET commit_siblings = 7")
	before, _, err := settings.ReadServer(ctx, conn, "commit_siblings")
	if err != nil {
		t.Fatal(err)
	}
	exec("ALTER SYSTEM SET commit_siblings = 9") // what the experiment left
	err = restore(ctx, claimsApplied{}, dsn, before, []string{"commit_siblings"})
	if err == nil || !strings.Contains(err.Error(), "commit_siblings=9 (was 7)") {
		t.Fatalf("restore through a server that applied nothing: %v, want the difference named", err)
	}
	if err := restore(ctx, pgtest.Cluster(t), dsn, before, []string{"commit_siblings"}); err != nil {
		t.Fatalf("a real restore: %v", err)
	}
}
