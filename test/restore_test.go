package e2e_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestKilledExperimentLeavesRestoreRecord: an experiment killed with
// SIGKILL while its step's settings are live leaves a restore record in the
// lab (with the originals, without the password); the next experiment on
// that server says so and refuses; 'pgoltp restore' puts the originals back,
// reads them back and removes the record.
func TestKilledExperimentLeavesRestoreRecord(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	lab := labDir(t)
	names := []string{"commit_delay", "commit_siblings"}
	before := showSettings(t, dsn, names)
	t.Cleanup(func() { resetSettings(t, dsn, names) })
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(plan, []byte(`
name: killed
workload: {kind: ledger, clients: 2}
duration: 10s
repetitions: 2
steps:
  - name: group commit
    settings: {commit_delay: 77, commit_siblings: 13}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Killed once the step's settings are live on the server, mid-step.
	killOnceApplied(t, func() bool { return showSettings(t, dsn, names)["commit_delay"] == "77" },
		"experiment", plan, "--dsn", dsn, "--lab", lab)

	records, _ := filepath.Glob(filepath.Join(lab, "restore", "*.json"))
	if len(records) != 1 {
		t.Fatalf("restore records after the kill: %v, want one", records)
	}
	b, err := os.ReadFile(records[0])
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"commit_delay"`) || cfg.Password != "" && strings.Contains(string(b), cfg.Password) {
		t.Fatalf("the record lacks the original settings or holds the password:\n%s", b)
	}

	next := runPgoltp(t, time.Minute, "experiment", plan, "--dsn", dsn, "--lab", lab)
	assertOneLineProblem(t, next, "pgoltp restore", "commit_delay", "did not restore")
	// A command that does not change settings goes on, and says so.
	if r := runPgoltp(t, time.Minute, "advise", "--dsn", dsn, "--lab", lab); !strings.Contains(r.stderr, "WARNING") || !strings.Contains(r.stderr, "pgoltp restore") {
		t.Fatalf("advise on the server did not mention the pending record: exit %d, stderr %q", r.code, r.stderr)
	}

	// Without --dsn, restore would look at the lab's cluster: it names the server the record is for.
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "restore", "--lab", lab), "--dsn", "commit_delay")

	r := runPgoltp(t, 2*time.Minute, "restore", "--dsn", dsn, "--lab", lab)
	if r.code != 0 || !strings.Contains(r.stdout, "restored 2 settings") {
		t.Fatalf("restore: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if after := showSettings(t, dsn, names); after["commit_delay"] != before["commit_delay"] || after["commit_siblings"] != before["commit_siblings"] {
		t.Fatalf("after restore %v, before the experiment %v", after, before)
	}
	if left, _ := filepath.Glob(filepath.Join(lab, "restore", "*.json")); len(left) != 0 {
		t.Fatalf("the record stays after a verified restore: %v", left)
	}
	if r := runPgoltp(t, time.Minute, "restore", "--dsn", dsn, "--lab", lab); r.code != 0 || !strings.Contains(r.stdout, "nothing to restore") {
		t.Fatalf("a second restore: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// TestKilledExperimentOnLabRestoresWithRestart: the same on the lab's
// managed cluster with a setting that needs a restart: every command on the
// lab warns, and 'pgoltp restore' restarts the server, reads back (no
// "broken pipe" from a session the restart ended) and removes the record.
func TestKilledExperimentOnLabRestoresWithRestart(t *testing.T) {
	t.Parallel() // its own lab's cluster
	lab := labDir(t)
	if r := runPgoltp(t, 5*time.Minute, "cluster", "up", "--lab", lab); r.code != 0 {
		t.Fatalf("cluster up: exit %d: %s", r.code, r.stderr)
	}
	t.Cleanup(func() { runPgoltp(t, time.Minute, "cluster", "destroy", "--lab", lab) })
	c, err := cluster.Open(lab)
	if err != nil {
		t.Fatal(err)
	}
	dsn := c.DSN("postgres")
	names := []string{"shared_buffers"}
	before := showSettings(t, dsn, names)
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(plan, []byte(`
name: killed
workload: {kind: ledger, clients: 2}
duration: 10s
repetitions: 2
steps:
  - name: other buffers
    settings: {shared_buffers: 48MB}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	killOnceApplied(t, func() bool { return readWhileRestarting(dsn, "shared_buffers") == "6144" }, // 48MB in 8kB pages
		"experiment", plan, "--lab", lab)

	if r := runPgoltp(t, time.Minute, "cluster", "status", "--lab", lab); !strings.Contains(r.stderr, "pgoltp restore") {
		t.Errorf("cluster status did not mention the pending record: %q", r.stderr)
	}
	r := runPgoltp(t, 3*time.Minute, "restore", "--lab", lab)
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, "broken pipe") || !strings.Contains(r.stdout, "shared_buffers") {
		t.Fatalf("restore: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if after := showSettings(t, dsn, names); after["shared_buffers"] != before["shared_buffers"] {
		t.Fatalf("shared_buffers after restore %s, before the experiment %s", after["shared_buffers"], before["shared_buffers"])
	}
	if left, _ := filepath.Glob(filepath.Join(lab, "restore", "*.json")); len(left) != 0 {
		t.Fatalf("the record stays after a verified restore: %v", left)
	}
}

// readWhileRestarting reads one setting, "" while the server does not answer.
func readWhileRestarting(dsn, name string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return ""
	}
	defer conn.Close(ctx)
	var v string
	_ = conn.QueryRow(ctx, "SELECT setting FROM pg_settings WHERE name = $1", name).Scan(&v)
	return v
}

// showSettings reads settings as a new session sees them.
func showSettings(t *testing.T, dsn string, names []string) map[string]string {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	out := map[string]string{}
	for _, n := range names {
		var v string
		if err := conn.QueryRow(context.Background(), "SELECT setting FROM pg_settings WHERE name = $1", n).Scan(&v); err != nil {
			t.Fatal(err)
		}
		out[n] = v
	}
	return out
}

// resetSettings removes names from postgresql.auto.conf and reloads.
func resetSettings(t *testing.T, dsn string, names []string) {
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Error(err)
		return
	}
	defer conn.Close(context.Background())
	for _, n := range names {
		if _, err := conn.Exec(context.Background(), "ALTER SYSTEM RESET "+pgx.Identifier{n}.Sanitize()); err != nil {
			t.Error(err)
		}
	}
	if _, err := conn.Exec(context.Background(), "SELECT pg_reload_conf()"); err != nil {
		t.Error(err)
	}
}

// killOnceApplied runs pgoltp with args and kills it with SIGKILL as soon as
// applied reports its step's settings live on the server.
func killOnceApplied(t *testing.T, applied func() bool, args ...string) {
	t.Helper()
	child := exec.Command(pgoltpBinary(t), args...)
	child.Dir = t.TempDir()
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	deadline := time.Now().Add(3 * time.Minute)
	for !applied() {
		if time.Now().After(deadline) {
			t.Fatal("the experiment never applied its step")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
}
