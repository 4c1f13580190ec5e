package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestApplyRefusesRefusedSettings: ApplySettings, the one function that runs
// ALTER SYSTEM SET, refuses settings pgoltp never sets whatever its caller
// checked (compare-versions once passed them through unchecked), for the
// managed cluster (Apply) and a bare connection (the --dsn path) alike. Each
// is a bad-input problem naming the setting, and nothing is half-applied:
// archive_mode sorts before listen_addresses, yet it is not set either.
func TestApplyRefusesRefusedSettings(t *testing.T) {
	needPostgres(t)
	c := upOrFatal(t, newLab(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	watched := []string{"listen_addresses", "port", "archive_mode", "archive_command", "jit_provider", "shared_preload_libraries", "log_directory", "work_mem"}
	before := showAll(t, c, watched)
	autoConf, err := c.readAutoConf()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	cases := []struct {
		refused string
		values  map[string]string
	}{
		{"listen_addresses", map[string]string{"archive_mode": "on", "listen_addresses": "*", "work_mem": "8MB"}},
		{"archive_command", map[string]string{"archive_command": "touch pwned_%f", "archive_mode": "on"}},
		{"port", map[string]string{"port": "1"}},
		{"jit_provider", map[string]string{"jit_provider": "llvmjit", "work_mem": "8MB"}},
		{"shared_preload_libraries", map[string]string{"shared_preload_libraries": "auto_explain"}},
		{"log_directory", map[string]string{"log_directory": "/tmp"}},
	}
	for _, tc := range cases {
		_, err := c.Apply(ctx, tc.values)
		wantBadInput(t, err, "never sets "+tc.refused)
		_, err = ApplySettings(ctx, conn, tc.values)
		wantBadInput(t, err, "never sets "+tc.refused)
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: the refusal is not one line: %q", tc.refused, err)
		}
	}
	if after, err := c.readAutoConf(); err != nil || string(after) != string(autoConf) {
		t.Errorf("postgresql.auto.conf changed by refused settings (%v):\n%s", err, after)
	}
	if after := showAll(t, c, watched); after != before {
		t.Errorf("settings changed by refused settings:\nbefore %s\nafter  %s", before, after)
	}
	// An ordinary setting still goes through.
	if _, err := c.Apply(ctx, map[string]string{"work_mem": "8MB"}); err != nil {
		t.Fatalf("Apply(work_mem): %v", err)
	}
	if got := query(t, c, "SHOW work_mem"); got != "8MB" {
		t.Errorf("work_mem = %q after Apply", got)
	}
}

// showAll returns the named settings as the server has them, including any
// change waiting for a restart.
func showAll(t *testing.T, c *Cluster, names []string) string {
	t.Helper()
	return query(t, c, "SELECT string_agg(name || '=' || setting || CASE WHEN pending_restart THEN ' (pending restart)' ELSE '' END, ', ' ORDER BY name) FROM pg_settings WHERE name = ANY('{"+strings.Join(names, ",")+"}')")
}
