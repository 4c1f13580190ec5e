package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/cluster"
)

func TestBadInputIsOneLineExit2(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		args     []string
		mentions []string
	}{
		{"unknown flag", []string{"--no-such-flag"}, []string{"--no-such-flag", "--help"}},
		{"unknown command", []string{"frobnicate"}, []string{"frobnicate"}},
		{"unknown subcommand flag", []string{"cluster", "up", "--colour"}, []string{"--colour"}},
		{"bad major", []string{"cluster", "up", "--pg", "9"}, []string{"9", "--pg"}},
		{"bad major type", []string{"cluster", "up", "--pg", "seventeen"}, []string{"seventeen"}},
		{"cluster with dsn", []string{"--dsn", "postgres://u@127.0.0.1:1/x", "cluster", "status"}, []string{"--dsn"}},
		{"no cluster in lab", []string{"cluster", "status", "--lab", "/nonexistent/lab"}, []string{"no managed cluster", "cluster up"}},
		{"server user root", []string{"cluster", "up", "--run-as", "root"}, []string{"root"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			lab := ""
			if args[0] == "cluster" && !strings.Contains(strings.Join(args, " "), "--lab") {
				lab = labDir(t)
				args = append(args, "--lab", lab)
			}
			r := runPgoltp(t, time.Minute, args...)
			if lab != "" {
				// Refused input leaves nothing behind, not even an empty lab.
				if _, err := os.Stat(lab); !os.IsNotExist(err) {
					t.Errorf("the refused command left the lab %s behind", lab)
				}
			}
			if tc.name == "server user root" && !isRoot() {
				// As a normal user --run-as needs root: still one line, exit 2.
				assertOneLineProblem(t, r, "--run-as")
				return
			}
			assertOneLineProblem(t, r, tc.mentions...)
		})
	}
}

func isRoot() bool { return os.Geteuid() == 0 }

// serverUID returns the real uid of the postmaster of dataDir, read from
// /proc/<pid>/status (the pid is the first line of postmaster.pid).
func serverUID(t *testing.T, dataDir string) int {
	t.Helper()
	pidFile, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _, _ := strings.Cut(string(pidFile), "\n")
	status, err := os.ReadFile(filepath.Join("/proc", strings.TrimSpace(pid), "status"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if fields := strings.Fields(line); len(fields) >= 2 && fields[0] == "Uid:" {
			uid, err := strconv.Atoi(fields[1]) // real, effective, saved, filesystem: the real one
			if err != nil {
				t.Fatal(err)
			}
			return uid
		}
	}
	t.Fatalf("no Uid line in /proc/%s/status", pid)
	return -1
}

// TestClusterCommands runs up, status, down, up, destroy as a user would, as
// root in CI: the server must run as the unprivileged user.
func TestClusterCommands(t *testing.T) {
	t.Parallel()
	lab := labDir(t)
	r := runPgoltp(t, 5*time.Minute, "cluster", "up", "--lab", lab, "--json")
	if r.code != 0 {
		t.Fatalf("cluster up: exit %d: %s", r.code, r.stderr)
	}
	t.Cleanup(func() { runPgoltp(t, time.Minute, "cluster", "destroy", "--lab", lab) })
	var st struct {
		Running   bool   `json:"running"`
		RunAs     string `json:"run_as"`
		DSN       string `json:"dsn"`
		Port      int    `json:"port"`
		SocketDir string `json:"socket_dir"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("cluster up --json: %v\n%s", err, r.stdout)
	}
	if !st.Running || st.Port == 0 {
		t.Errorf("status after up: %+v", st)
	}
	if isRoot() {
		// What the kernel says about the running postmaster, not what pgoltp recorded.
		uid := serverUID(t, filepath.Join(lab, "data"))
		if uid == 0 {
			t.Error("the server runs as root")
		}
		if u, err := user.Lookup(st.RunAs); err != nil || u.Uid != strconv.Itoa(uid) {
			t.Errorf("the server runs as uid %d, the lab says %q (%v)", uid, st.RunAs, err)
		}
	}
	pw, err := os.ReadFile(filepath.Join(lab, "password"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.stdout+r.stderr, strings.TrimSpace(string(pw))) {
		t.Error("the password was printed")
	}

	r = runPgoltp(t, time.Minute, "cluster", "status", "--lab", lab)
	if r.code != 0 || !strings.Contains(r.stdout, "running") || !strings.Contains(r.stdout, "127.0.0.1") {
		t.Errorf("status: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runPgoltp(t, time.Minute, "cluster", "psql", "--lab", lab, "--", "-Atc", "select current_setting('listen_addresses')")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "127.0.0.1" {
		t.Errorf("psql through the lab: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = runPgoltp(t, time.Minute, "cluster", "down", "--lab", lab)
	if r.code != 0 || !strings.Contains(r.stdout, "stopped") {
		t.Errorf("down: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runPgoltp(t, 2*time.Minute, "cluster", "up", "--lab", lab)
	if r.code != 0 || !strings.Contains(r.stdout, "running") {
		t.Errorf("up again: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Files a user put in the lab and its log directory are not pgoltp's to delete.
	userFiles := []string{filepath.Join(lab, "my-notes.txt"), filepath.Join(lab, "log", "mine.log")}
	for _, f := range userFiles {
		if err := os.WriteFile(f, []byte("keep"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r = runPgoltp(t, time.Minute, "cluster", "destroy", "--lab", lab)
	if r.code != 0 {
		t.Errorf("destroy: exit %d %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(lab, "data")); !os.IsNotExist(err) {
		t.Error("destroy left the data directory")
	}
	for _, f := range userFiles {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("destroy removed a user's file: %v", err)
		}
	}
}

// TestClusterUpRefusesForeignData: a non-empty data directory pgoltp did not
// create is refused in one line, exit 2, and left as it was.
func TestClusterUpRefusesForeignData(t *testing.T) {
	t.Parallel()
	lab := labDir(t)
	precious := filepath.Join(lab, "data", "precious.txt")
	if err := os.MkdirAll(filepath.Dir(precious), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(precious, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "cluster", "up", "--lab", lab), "not empty", "did not create")
	if _, err := os.Stat(precious); err != nil {
		t.Errorf("the user's file is gone: %v", err)
	}
}

// TestConcurrentClusterUp: two 'cluster up' at once on one lab. The loser
// waits for the lab or gives up in one line; it never deletes the winner's data.
func TestConcurrentClusterUp(t *testing.T) {
	t.Parallel()
	lab := labDir(t)
	bin := pgoltpBinary(t)
	results := make(chan result, 2)
	for i := 0; i < 2; i++ {
		go func() { results <- runBinary(bin, 5*time.Minute, "cluster", "up", "--lab", lab) }()
	}
	t.Cleanup(func() { runPgoltp(t, time.Minute, "cluster", "destroy", "--lab", lab) })
	ok := 0
	for i := 0; i < 2; i++ {
		r := <-results
		switch {
		case r.code == 0:
			ok++
		case r.code == 2 && strings.Contains(r.stderr, "is busy") && strings.Contains(r.stderr, "'pgoltp cluster up' (pid"):
		default:
			t.Errorf("cluster up: exit %d: %s", r.code, r.stderr)
		}
	}
	if ok == 0 {
		t.Fatal("neither cluster up succeeded")
	}
	r := runPgoltp(t, time.Minute, "cluster", "psql", "--lab", lab, "--", "-Atc", "select 1")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "1" {
		t.Errorf("the winner's cluster does not answer: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(lab, "data", "PG_VERSION")); err != nil {
		t.Errorf("the winner's data directory is damaged: %v", err)
	}
}

// TestLabLockHeld: a command that changes the cluster waits briefly for a lab
// another command holds, then names that command and its pid in one line.
func TestLabLockHeld(t *testing.T) {
	t.Parallel()
	lab := labDir(t)
	unlock, err := cluster.LockLab(lab, "experiment", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	start := time.Now()
	r := runPgoltp(t, time.Minute, "cluster", "up", "--lab", lab)
	assertOneLineProblem(t, r, "is busy", fmt.Sprintf("'pgoltp experiment' (pid %d)", os.Getpid()))
	if time.Since(start) < time.Second {
		t.Errorf("gave up after %v without waiting", time.Since(start))
	}
	if _, err := os.Stat(filepath.Join(lab, "data")); !os.IsNotExist(err) {
		t.Error("cluster up created the cluster while another command held the lab")
	}
}

// TestBadDSN: a malformed DSN and an unreachable server each end in one line,
// exit 2, and the DSN's password is not echoed.
func TestBadDSN(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		dsn      string
		mentions []string
	}{
		{"malformed", "postgres://u:s3cret@host:notaport/db", []string{"--dsn", "not a valid"}},
		{"unreachable", "postgres://u:s3cret@127.0.0.1:1/db", []string{"cannot reach", "127.0.0.1:1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runPgoltp(t, time.Minute, "tpcc", "check", "--dsn", tc.dsn)
			assertOneLineProblem(t, r, tc.mentions...)
			if strings.Contains(r.stderr, "s3cret") {
				t.Errorf("the password was printed: %q", r.stderr)
			}
		})
	}
}

// TestVerbose: -v names the server used and, on failure, the causes behind
// the one line, still without the password.
func TestVerbose(t *testing.T) {
	t.Parallel()
	r := runPgoltp(t, time.Minute, "-v", "--dsn", "postgres://u:s3cret@127.0.0.1:1/db", "tpcc", "check")
	if r.code != 2 || !strings.Contains(r.stderr, "caused by") || !strings.Contains(r.stderr, "connection refused") {
		t.Errorf("-v should show the cause: exit %d %q", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "s3cret") {
		t.Errorf("the password was printed: %q", r.stderr)
	}
}

// runBinary runs pgoltp without a *testing.T, for concurrent invocations.
func runBinary(bin string, timeout time.Duration, args ...string) result {
	r, err := execPgoltp(bin, os.TempDir(), timeout, args...)
	if err != nil {
		return result{stderr: err.Error(), code: -1}
	}
	return r
}
