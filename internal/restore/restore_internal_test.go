package restore

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

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
	err = Settings(ctx, claimsApplied{}, dsn, before, []string{"commit_siblings"})
	if err == nil || !strings.Contains(err.Error(), "commit_siblings=9 (was 7)") {
		t.Fatalf("restore through a server that applied nothing: %v, want the difference named", err)
	}
	if err := Settings(ctx, pgtest.Cluster(t), dsn, before, []string{"commit_siblings"}); err != nil {
		t.Fatalf("a real restore: %v", err)
	}
}

// TestRestoreGoesOnAfterAFailedStatement: a statement of the restore that
// fails (a setting this server does not have) does not stop the others:
// the rest is reset, the configuration reloaded, and the values read back.
func TestRestoreGoesOnAfterAFailedStatement(t *testing.T) {
	ctx := context.Background()
	conn, dsn := pgtest.Conn(t)
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	before, _, err := settings.ReadServer(ctx, conn, "commit_siblings")
	if err != nil {
		t.Fatal(err)
	}
	if before["commit_siblings"].FromAutoConf() {
		t.Skip("commit_siblings is set with ALTER SYSTEM on this server")
	}
	t.Cleanup(func() { exec("ALTER SYSTEM RESET commit_siblings"); exec("SELECT pg_reload_conf()") })
	exec("ALTER SYSTEM SET commit_siblings = 9")
	exec("SELECT pg_reload_conf(), pg_sleep(0.2)")
	err = Settings(ctx, pgtest.Cluster(t), dsn, before, []string{"a_setting_no_server_has", "commit_siblings"})
	if err != nil {
		t.Fatalf("restore: %v (the failed reset must not stop the rest, and the values read back are the originals)", err)
	}
	fresh, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close(ctx)
	var v string
	if err := fresh.QueryRow(ctx, "SHOW commit_siblings").Scan(&v); err != nil || v != before["commit_siblings"].Setting {
		t.Fatalf("commit_siblings after the restore: %s %v, want %s", v, err, before["commit_siblings"].Setting)
	}
}
