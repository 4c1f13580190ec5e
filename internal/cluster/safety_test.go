package cluster

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/problem"
)

func needPostgres(t *testing.T) {
	t.Helper()
	if _, ok := Find(0, CacheDir()); !ok {
		t.Skip("no PostgreSQL installed on this machine")
	}
}

func wantBadInput(t *testing.T, err error, mentions ...string) {
	t.Helper()
	var p *problem.Problem
	if !errors.As(err, &p) || p.Code != problem.ExitBadInput {
		t.Fatalf("got %v, want a bad-input problem", err)
	}
	for _, m := range mentions {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("%q should mention %q", err, m)
		}
	}
}

func upOrFatal(t *testing.T, lab string) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := Up(ctx, Options{Lab: lab})
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	t.Cleanup(func() { _ = c.Destroy(context.Background()) })
	return c
}

// A data directory pgoltp did not create is refused, not wiped.
func TestUpRefusesDataDirItDidNotCreate(t *testing.T) {
	needPostgres(t)
	lab := newLab(t)
	precious := filepath.Join(lab, "data", "precious.txt")
	if err := os.MkdirAll(filepath.Dir(precious), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(precious, []byte("a user's data"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Up(context.Background(), Options{Lab: lab})
	wantBadInput(t, err, filepath.Join(lab, "data"), "did not create")
	if b, err := os.ReadFile(precious); err != nil || string(b) != "a user's data" {
		t.Fatalf("the user's file is gone or changed: %q %v", b, err)
	}
	if Exists(lab) {
		t.Error("a cluster was recorded in a refused lab")
	}
}

// A password file that pgoltp did not write is not overwritten.
func TestUpRefusesForeignStateFiles(t *testing.T) {
	needPostgres(t)
	lab := newLab(t)
	if err := os.MkdirAll(lab, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lab, "pgpass"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Up(context.Background(), Options{Lab: lab})
	wantBadInput(t, err, "pgpass")
	if b, _ := os.ReadFile(filepath.Join(lab, "pgpass")); string(b) != "mine" {
		t.Errorf("pgpass was overwritten: %q", b)
	}
	if _, err := os.Stat(filepath.Join(lab, "data")); !os.IsNotExist(err) {
		t.Error("a refused Up left a data directory behind")
	}
}

// Destroy removes pgoltp's own files only, and no unmarked data directory.
func TestDestroyRemovesOnlyItsOwnFiles(t *testing.T) {
	needPostgres(t)
	lab := newLab(t)
	c := upOrFatal(t, lab)
	ctx := context.Background()

	// Without pgoltp's marker the data directory is not pgoltp's to remove.
	marker := markerPath(c.DataDir)
	b, err := os.ReadFile(marker)
	if err != nil {
		t.Fatalf("no marker after Up: %v", err)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	wantBadInput(t, c.Destroy(ctx), ownedMarker)
	if _, err := os.Stat(filepath.Join(c.DataDir, "PG_VERSION")); err != nil {
		t.Fatalf("the unmarked data directory was touched: %v", err)
	}
	if err := os.WriteFile(marker, b, 0o644); err != nil {
		t.Fatal(err)
	}

	users := []string{filepath.Join(lab, "notes.txt"), filepath.Join(lab, "log", "my.log"), filepath.Join(c.SocketDir, "keep")}
	for _, f := range users {
		if err := os.WriteFile(f, []byte("user"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Destroy(ctx); err != nil {
		t.Fatalf("Destroy: %v", err)
	}
	for _, f := range users {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("Destroy removed a file it did not create: %v", err)
		}
	}
	for _, gone := range []string{c.DataDir, c.LogFile, statePath(lab), passwordPath(lab), c.PassFile()} {
		if _, err := os.Lstat(gone); !os.IsNotExist(err) {
			t.Errorf("Destroy left %s", gone)
		}
	}
}

// A lab path with spaces and quotes works: initdb, start, connect, stop.
func TestLabPathWithSpacesAndQuotes(t *testing.T) {
	needPostgres(t)
	lab := filepath.Join(filepath.Dir(newLab(t)), "my lab's dir")
	c := upOrFatal(t, lab)
	if filepath.Dir(c.SocketDir) != lab {
		t.Fatalf("socket dir %s is not in the lab: the test would not exercise quoting", c.SocketDir)
	}
	if got := query(t, c, "SHOW unix_socket_directories"); !strings.Contains(got, "my lab's dir") {
		t.Errorf("unix_socket_directories = %q", got)
	}
	t.Setenv("PGPASSFILE", c.PassFile())
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.DisplayDSN("postgres"))
	if err != nil {
		t.Fatalf("connecting with the display DSN and pgpass: %v", err)
	}
	conn.Close(ctx)
	if err := c.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if c.Running(ctx) {
		t.Error("still running after Stop")
	}
}

func TestLabPathShellCharactersRefused(t *testing.T) {
	_, err := Up(context.Background(), Options{Lab: filepath.Join(filepath.Dir(newLab(t)), "a$(id)b")})
	wantBadInput(t, err, "pg_ctl cannot quote")
}

// As root, a lab that another user may write to, or that another user owns,
// is refused before anything is written in it.
func TestRootRefusesLabOthersMayWrite(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the check applies to root")
	}
	cases := []struct {
		name  string
		setup func(lab string) error
		want  string
	}{
		{"world-writable", func(lab string) error { return os.Chmod(lab, 0o777) }, "other users may write"},
		{"group-writable", func(lab string) error { return os.Chmod(lab, 0o775) }, "other users may write"},
		{"owned by nobody", func(lab string) error { return os.Chown(lab, 65534, 65534) }, "belongs to uid 65534"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lab := newLab(t)
			if err := os.Mkdir(lab, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := tc.setup(lab); err != nil {
				t.Fatal(err)
			}
			_, err := Up(context.Background(), Options{Lab: lab})
			wantBadInput(t, err, tc.want)
			_, lerr := LockLab(lab, "test", 0)
			wantBadInput(t, lerr, tc.want)
			if entries, _ := os.ReadDir(lab); len(entries) != 0 {
				t.Errorf("something was written in the refused lab: %v", entries)
			}
		})
	}
}

// Files of the lab and of the data directory are never written through a
// symlink (nor a hard link) someone planted.
func TestNoWritesThroughPlantedLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("untouched"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "password")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := writePrivate(link, "secret"); err == nil {
		t.Error("writePrivate wrote through a symlink")
	}
	me, err := resolveServerUser("")
	if os.Geteuid() == 0 {
		me = serverUser{Name: "root", UID: 0, GID: 0, self: true}
		err = nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if f, err := me.openInData(link, os.O_WRONLY|os.O_TRUNC); err == nil {
		f.Close()
		t.Error("openInData opened a symlink")
	}
	hard := filepath.Join(dir, "pgoltp.conf")
	if err := os.Link(target, hard); err != nil {
		t.Fatal(err)
	}
	if f, err := me.openInData(hard, os.O_WRONLY|os.O_TRUNC); err == nil {
		f.Close()
		t.Error("openInData opened a file with another hard link")
	}
	if b, _ := os.ReadFile(target); string(b) != "untouched" {
		t.Errorf("the link target was written: %q", b)
	}
}

// A lab path too long for a socket gets a fresh directory under /tmp, and one
// that is replaced or taken over while the cluster is down is not re-used.
func TestFallbackSocketDirIsFresh(t *testing.T) {
	needPostgres(t)
	lab := filepath.Join(filepath.Dir(newLab(t)), strings.Repeat("long-", 16), "lab")
	if err := os.MkdirAll(filepath.Dir(lab), 0o755); err != nil {
		t.Fatal(err)
	}
	c := upOrFatal(t, lab)
	if filepath.Dir(c.SocketDir) == c.Lab || !strings.HasPrefix(c.SocketDir, os.TempDir()) {
		t.Fatalf("socket dir %s: want a fallback under %s", c.SocketDir, os.TempDir())
	}
	ctx := context.Background()
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	// Someone else takes the name while the server is down.
	old := c.SocketDir
	if err := os.Remove(old); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(old, 0o777); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(old, 0o777)
	defer os.Remove(old)
	c2, err := Up(ctx, Options{Lab: lab})
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	if c2.SocketDir == old {
		t.Fatalf("the server re-used %s, a directory anyone could write to", old)
	}
	if got := query(t, c2, "SHOW unix_socket_directories"); !strings.Contains(got, c2.SocketDir) {
		t.Errorf("unix_socket_directories = %q, want %s", got, c2.SocketDir)
	}
	if entries, _ := os.ReadDir(old); len(entries) != 0 {
		t.Errorf("the server put its socket in the taken-over %s", old)
	}
	c.SocketDir = c2.SocketDir // for the cleanup's Destroy
}

// Kill signals nothing but the cluster's own postmaster: a postmaster.pid
// naming an unrelated process (a stale pid re-used) is refused.
func TestKillChecksTheProcess(t *testing.T) {
	bins, ok := Find(0, CacheDir())
	if !ok {
		t.Skip("no PostgreSQL installed on this machine")
	}
	u, err := resolveServerUser("")
	if err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()
	c := &Cluster{BinDir: bins.Dir, DataDir: dataDir, user: u}

	sleepers := []*exec.Cmd{exec.Command("sleep", "60")}
	if !u.self {
		// Same uid as the server, wrong executable.
		sleepers = append(sleepers, u.command(context.Background(), "/", "/bin/sleep", "60"))
	}
	for _, cmd := range sleepers {
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid := cmd.Process.Pid
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		pidFile := strconv.Itoa(pid) + "\n" + dataDir + "\n"
		if err := os.WriteFile(filepath.Join(dataDir, "postmaster.pid"), []byte(pidFile), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := c.Kill(); err == nil || !strings.Contains(err.Error(), "refusing") {
			t.Errorf("Kill of an unrelated process %d: got %v, want a refusal", pid, err)
		}
		time.Sleep(50 * time.Millisecond)
		if err := syscall.Kill(pid, 0); err != nil {
			t.Errorf("the unrelated process %d was signalled: %v", pid, err)
		}
		var ws syscall.WaitStatus
		if wpid, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); wpid == pid {
			t.Errorf("the unrelated process %d died: %v", pid, ws)
		}
	}
}

// A setting the server cannot start with does not take the lab hostage: the
// previous value comes back, the server runs, and the error names the setting
// and quotes the server log.
func TestApplyRecoversFromSettingThatStopsTheServer(t *testing.T) {
	needPostgres(t)
	if b, _ := os.ReadFile("/proc/sys/vm/overcommit_memory"); strings.TrimSpace(string(b)) == "1" {
		t.Skip("with vm.overcommit_memory=1 a huge shared_buffers may start")
	}
	c := upOrFatal(t, newLab(t))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := c.Apply(ctx, map[string]string{"shared_buffers": "64MB"}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Apply(ctx, map[string]string{"shared_buffers": "4000GB", "work_mem": "8MB"})
	wantBadInput(t, err, `shared_buffers = "4000GB"`, "FATAL:", "restored")
	if strings.Contains(err.Error(), "work_mem") {
		t.Errorf("the error blames work_mem too: %v", err)
	}
	if !c.Running(ctx) {
		t.Fatal("the server is not running after the failed settings")
	}
	if got := query(t, c, "SHOW shared_buffers"); got != "64MB" {
		t.Errorf("shared_buffers = %q, want the previous 64MB", got)
	}
	if got := query(t, c, "SHOW work_mem"); got == "8MB" {
		t.Error("work_mem from the failed Apply is still set")
	}
	if got := query(t, c, "SELECT count(*)::text FROM pg_file_settings WHERE name = 'shared_buffers' AND setting = '4000GB'"); got != "0" {
		t.Error("postgresql.auto.conf still holds the setting that stopped the server")
	}
}

func TestFirstFatal(t *testing.T) {
	log := `2026-11-23 16:00:00.000 UTC [1] LOG:  starting PostgreSQL 15.8
2026-11-23 16:00:00.001 UTC [1] FATAL:  could not map anonymous shared memory: Cannot allocate memory
2026-11-23 16:00:00.001 UTC [1] HINT:  This error usually means that PostgreSQL's request for a shared memory segment exceeded available memory, swap space, or huge pages.
2026-11-23 16:00:00.002 UTC [1] LOG:  database system is shut down
`
	got := firstFatal(log)
	if !strings.HasPrefix(got, "FATAL: could not map anonymous shared memory") || !strings.Contains(got, "HINT: This error") {
		t.Errorf("firstFatal = %q", got)
	}
	if firstFatal("LOG: all is well\n") != "" {
		t.Error("firstFatal found a failure in a clean log")
	}
}

// A create that fails half-way removes what it created and nothing else.
func TestFailedUpRemovesOnlyWhatItCreated(t *testing.T) {
	needPostgres(t)
	lab := newLab(t)
	if err := os.MkdirAll(filepath.Join(lab, "log"), 0o755); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(lab, "log", "mine.log")
	// A file where the socket directory should go makes the create fail
	// after the data directory was made.
	run := filepath.Join(lab, "run")
	for _, f := range []string{mine, run} {
		if err := os.WriteFile(f, []byte("user"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Up(context.Background(), Options{Lab: lab}); err == nil {
		t.Fatal("Up succeeded with a file in place of the socket directory")
	}
	if _, err := os.Lstat(filepath.Join(lab, "data")); !os.IsNotExist(err) {
		t.Errorf("the data directory this call created was left behind: %v", err)
	}
	for _, f := range []string{mine, run} {
		if b, err := os.ReadFile(f); err != nil || string(b) != "user" {
			t.Errorf("%s was removed or changed: %v", f, err)
		}
	}
}

// Handing a path to the server user never follows a symlink planted there.
func TestOwnDoesNotFollowSymlinks(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root hands files to another user")
	}
	u, err := resolveServerUser("")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "root-file")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "data")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := u.own(link); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != 0 {
		t.Errorf("the symlink's target was handed to uid %d", st.Uid)
	}
}

// A data or log path of the lab that is a file or a symlink is refused by
// Up (nothing handed to the server user, nothing written at the link's end).
func TestUpRefusesDataFileAndSymlinks(t *testing.T) {
	needPostgres(t)
	cases := []struct {
		name, entry string
		link        bool
		want        string
	}{
		{"data is a file", "data", false, "not a directory"},
		{"data is a symlink", "data", true, "symlink"},
		{"log is a symlink", "log", true, "symlink"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lab := newLab(t)
			if err := os.MkdirAll(lab, 0o755); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(filepath.Dir(lab), "elsewhere")
			if err := os.Mkdir(target, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(lab, tc.entry)
			var err error
			if tc.link {
				err = os.Symlink(target, path)
			} else {
				err = os.WriteFile(path, []byte("a user's file"), 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			_, err = Up(context.Background(), Options{Lab: lab})
			wantBadInput(t, err, path, tc.want)
			for _, p := range []string{path, target} {
				fi, err := os.Lstat(p)
				if err != nil {
					t.Fatal(err)
				}
				if uid := fi.Sys().(*syscall.Stat_t).Uid; uid != uint32(os.Geteuid()) {
					t.Errorf("%s was handed to uid %d", p, uid)
				}
			}
			if entries, _ := os.ReadDir(target); len(entries) != 0 {
				t.Errorf("something was written at the link's end: %v", entries)
			}
		})
	}
}

// Destroy does not follow a log symlink to delete the target's files.
func TestDestroyRefusesLogSymlink(t *testing.T) {
	needPostgres(t)
	lab := newLab(t)
	c := upOrFatal(t, lab)
	victimDir := filepath.Join(filepath.Dir(lab), "victim")
	if err := os.Mkdir(victimDir, 0o755); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(victimDir, "server.log")
	if err := os.WriteFile(victim, []byte("someone's log"), 0o644); err != nil {
		t.Fatal(err)
	}
	logDir := filepath.Dir(c.LogFile)
	if err := os.Rename(logDir, logDir+".real"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victimDir, logDir); err != nil {
		t.Fatal(err)
	}
	wantBadInput(t, c.Destroy(context.Background()), logDir, "symlink")
	if b, err := os.ReadFile(victim); err != nil || string(b) != "someone's log" {
		t.Errorf("the link's target was removed or changed: %q %v", b, err)
	}
	if !c.Running(context.Background()) {
		t.Error("a refused Destroy stopped the server")
	}
	// Put the lab back for the cleanup's Destroy.
	if err := os.Remove(logDir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(logDir+".real", logDir); err != nil {
		t.Fatal(err)
	}
}

// TestProcessOfReplacedBinary: a process whose executable was replaced
// while it runs (a package upgrade of PostgreSQL under the lab's server) is
// still known by the path it was started from, so pgoltp can stop its own
// server after an upgrade.
func TestProcessOfReplacedBinary(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep here")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "server")
	b, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if err := os.Remove(bin); err != nil { // what dpkg does to the old file
		t.Fatal(err)
	}
	_, exe, err := processOf(cmd.Process.Pid)
	if err != nil || exe != bin {
		t.Errorf("processOf after the binary was replaced: %q, %v; want %q", exe, err, bin)
	}
}
