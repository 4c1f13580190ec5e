package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// newLab returns a lab path the unprivileged server user can reach (t.TempDir
// is 0700, which is exactly what the server user could not enter as root).
func newLab(t *testing.T) string {
	t.Helper()
	base := filepath.Join(os.TempDir(), "pgoltp-test")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(base, 0o755)
	dir, err := os.MkdirTemp(base, "cluster-")
	if err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "lab")
}

func query(t *testing.T, c *Cluster, sql string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	var s string
	if err := conn.QueryRow(ctx, sql).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

// lifecycle exercises one cluster: up, settings, restart, crash, destroy.
func lifecycle(t *testing.T, major int) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	lab := newLab(t)
	c, err := Up(ctx, Options{Lab: lab, Major: major})
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	t.Cleanup(func() { c.Destroy(context.Background()) })
	if major != 0 && c.Major != major {
		t.Fatalf("got PostgreSQL %d, want %d", c.Major, major)
	}
	if !strings.HasPrefix(query(t, c, "SHOW server_version"), c.Version) {
		t.Errorf("server_version does not match %s", c.Version)
	}
	// Safe by default: loopback only, scram, pg_stat_statements preloaded.
	if got := query(t, c, "SHOW listen_addresses"); got != "127.0.0.1" {
		t.Errorf("listen_addresses = %q, want 127.0.0.1", got)
	}
	if got := query(t, c, "SHOW password_encryption"); got != "scram-sha-256" {
		t.Errorf("password_encryption = %q", got)
	}
	if got := query(t, c, "SHOW shared_preload_libraries"); !strings.Contains(got, "pg_stat_statements") {
		t.Errorf("shared_preload_libraries = %q", got)
	}
	if got := query(t, c, "SHOW track_io_timing"); got != "on" {
		t.Errorf("track_io_timing = %q", got)
	}
	if got := query(t, c, "SELECT string_agg(DISTINCT auth_method, ',') FROM pg_hba_file_rules"); got != "scram-sha-256" {
		t.Errorf("pg_hba auth methods = %q, want only scram-sha-256", got)
	}
	fi, err := os.Stat(filepath.Join(lab, "password"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("password file mode: %v %v", fi, err)
	}
	// The lab's password file serves pgx (and libpq) without the password in the DSN.
	t.Setenv("PGPASSFILE", c.PassFile())
	if conn, err := pgx.Connect(ctx, c.DisplayDSN("postgres")); err != nil {
		t.Errorf("connecting with the lab's pgpass: %v", err)
	} else {
		conn.Close(ctx)
	}
	// A wrong password is refused: authentication is real.
	bad := strings.Replace(c.DSN("postgres"), "password="+dsnQuote(c.password), "password=wrong", 1)
	if bad == c.DSN("postgres") {
		t.Fatal("the DSN does not hold the password as expected")
	}
	if conn, err := pgx.Connect(ctx, bad); err == nil {
		conn.Close(ctx)
		t.Error("a wrong password was accepted")
	}
	if os.Geteuid() == 0 {
		if got := query(t, c, "SELECT pg_catalog.pg_get_userbyid(datdba) FROM pg_database WHERE datname='template1'"); got != Superuser {
			t.Errorf("template1 owner %q", got)
		}
		fi, _ := os.Stat(c.DataDir)
		if st := fi.Sys(); st == nil {
			t.Error("no stat")
		}
	}

	// A reloadable setting does not restart; a postmaster setting does.
	pid1 := query(t, c, "SELECT pg_postmaster_start_time()::text")
	restarted, err := c.Apply(ctx, map[string]string{"work_mem": "8MB"})
	if err != nil || restarted {
		t.Fatalf("Apply(work_mem) restarted=%v err=%v", restarted, err)
	}
	if got := query(t, c, "SHOW work_mem"); got != "8MB" {
		t.Errorf("work_mem = %q after Apply", got)
	}
	restarted, err = c.Apply(ctx, map[string]string{"shared_buffers": "64MB"})
	if err != nil || !restarted {
		t.Fatalf("Apply(shared_buffers) restarted=%v err=%v", restarted, err)
	}
	if got := query(t, c, "SHOW shared_buffers"); got != "64MB" {
		t.Errorf("shared_buffers = %q after Apply", got)
	}
	if pid2 := query(t, c, "SELECT pg_postmaster_start_time()::text"); pid2 == pid1 {
		t.Error("server was not restarted")
	}
	_, err = c.Apply(ctx, map[string]string{"shared_buffers": "lots"})
	var p *problem.Problem
	if !errors.As(err, &p) || p.Code != problem.ExitBadInput {
		t.Errorf("bad value: got %v, want a bad-input problem", err)
	}

	// Crash and recover: committed data survives.
	func() {
		conn, err := pgx.Connect(ctx, c.DSN("postgres"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "CREATE TABLE survivor AS SELECT 42 AS x"); err != nil {
			t.Fatal(err)
		}
	}()
	if err := c.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if c.Running(ctx) {
		t.Fatal("still running after Kill")
	}
	c2, err := Up(ctx, Options{Lab: lab})
	if err != nil {
		t.Fatalf("Up after crash: %v", err)
	}
	if got := query(t, c2, "SELECT x::text FROM survivor"); got != "42" {
		t.Errorf("after crash recovery got %q", got)
	}
	if !strings.Contains(readTail(c2.LogFile), "not properly shut down") {
		t.Error("the server log shows no crash recovery")
	}
	if err := c2.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := c2.Destroy(ctx); err != nil {
		t.Fatalf("Destroy: %v", err)
	}
	if Exists(lab) {
		t.Error("lab still holds a cluster after Destroy")
	}
}

func TestClusterLifecycleInstalled(t *testing.T) {
	if _, ok := Find(0, CacheDir()); !ok {
		t.Skip("no PostgreSQL installed on this machine")
	}
	lifecycle(t, 0)
}

// TestClusterLifecycleDownloaded uses a major that is not installed here, so
// that the Maven Central download, checksum and unpack path runs for real.
func TestClusterLifecycleDownloaded(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads PostgreSQL")
	}
	// A fresh cache, so that the download really happens on every run. It
	// must be reachable by the server user, like the lab.
	cache := filepath.Join(filepath.Dir(newLab(t)), "cache")
	t.Setenv("PGOLTP_CACHE", cache)
	lifecycle(t, 17)
	if !hasDownload(cache) {
		t.Errorf("nothing was downloaded into %s", cache)
	}
}

func TestUpRejectsBadInput(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"unsupported major", Options{Lab: newLab(t), Major: 9}, "not supported"},
		{"root as server user", Options{Lab: newLab(t), RunAs: "root"}, "root"},
		{"unknown server user", Options{Lab: newLab(t), RunAs: "no_such_user_xyz"}, "no_such_user_xyz"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Up(ctx, tc.opts)
			var p *problem.Problem
			if !errors.As(err, &p) || p.Code != problem.ExitBadInput {
				t.Fatalf("got %v, want a bad-input problem", err)
			}
			if !strings.Contains(err.Error(), tc.want) || p.Fix == "" {
				t.Errorf("error %q should name %q and a fix", err, tc.want)
			}
		})
	}
}

func TestMissingBinariesOffline(t *testing.T) {
	t.Setenv("PGOLTP_CACHE", t.TempDir())
	_, err := Up(context.Background(), Options{Lab: newLab(t), Major: 13, Offline: true})
	var p *problem.Problem
	if !errors.As(err, &p) || !strings.Contains(p.Error(), "PostgreSQL 13") {
		t.Fatalf("got %v, want a problem naming PostgreSQL 13", err)
	}
}

func TestDownloadFailureIsClear(t *testing.T) {
	t.Setenv("PGOLTP_CACHE", t.TempDir())
	t.Setenv("PGOLTP_MAVEN_REPO", "http://127.0.0.1:1/nothing")
	_, err := Up(context.Background(), Options{Lab: newLab(t), Major: 13})
	var p *problem.Problem
	if !errors.As(err, &p) || p.Code != problem.ExitBadInput || !strings.Contains(p.Fix, "install") {
		t.Fatalf("got %v, want a bad-input problem telling how to install", err)
	}
}

func hasDownload(cache string) bool {
	m, _ := filepath.Glob(filepath.Join(cache, "postgres-17.*", "bin", "postgres"))
	return len(m) > 0
}
