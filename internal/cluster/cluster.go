// Package cluster manages a throwaway PostgreSQL cluster in a lab directory:
// it finds or downloads the server binaries, runs initdb, starts and stops the
// server as an unprivileged user, and applies settings. It knows nothing about
// workloads or results.
//
// Lab layout:
//
//	cluster.json   what was created: binaries, major, port, socket dir, server user
//	password       the superuser password (0600, readable by the invoking user only)
//	pgpass         the same as a libpq password file, for psql
//	data/          PGDATA, owned by the server user
//	log/server.log the server's log
//	run/           the Unix socket (or a short path under /tmp if the lab path is long)
package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// Superuser is the name of the cluster's superuser.
const Superuser = "postgres"

// Options say which cluster to manage and how to create it.
type Options struct {
	Lab      string    // lab directory (created if missing)
	Major    int       // PostgreSQL major; 0 = the newest installed (download 18 if none)
	RunAs    string    // OS user for the server when running as root; "" = postgres
	Progress io.Writer // download progress and notes; nil = quiet
	Offline  bool      // never download; fail if no binaries are installed
}

// Cluster is a managed PostgreSQL cluster.
type Cluster struct {
	Lab       string `json:"-"`
	BinDir    string `json:"bin_dir"`
	Major     int    `json:"major"`
	Version   string `json:"version"`
	Port      int    `json:"port"`
	SocketDir string `json:"socket_dir"`
	RunAs     string `json:"run_as"`
	DataDir   string `json:"-"`
	LogFile   string `json:"-"`

	user     serverUser
	password string
}

func statePath(lab string) string    { return filepath.Join(lab, "cluster.json") }
func passwordPath(lab string) string { return filepath.Join(lab, "password") }

// Exists reports whether lab holds a cluster created by pgoltp.
func Exists(lab string) bool {
	_, err := os.Stat(statePath(lab))
	return err == nil
}

// Open loads the cluster of an existing lab without starting it.
func Open(lab string) (*Cluster, error) {
	lab, err := filepath.Abs(lab)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(statePath(lab))
	if errors.Is(err, os.ErrNotExist) {
		return nil, problem.BadInput("run 'pgoltp cluster up --lab "+lab+"' first, or pass --dsn", "no managed cluster in %s", lab)
	}
	if err != nil {
		return nil, err
	}
	c := &Cluster{}
	if err := json.Unmarshal(b, c); err != nil {
		return nil, problem.Wrap(err, "remove the lab directory or run 'pgoltp cluster destroy'", "%s is damaged", statePath(lab))
	}
	c.fill(lab)
	pw, err := os.ReadFile(passwordPath(lab))
	if err != nil {
		return nil, problem.Wrap(err, "run pgoltp as the user who created the lab (or root)", "cannot read the cluster password")
	}
	c.password = strings.TrimSpace(string(pw))
	if c.user, err = resolveServerUser(c.RunAs); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Cluster) fill(lab string) {
	c.Lab = lab
	c.DataDir = filepath.Join(lab, "data")
	c.LogFile = filepath.Join(lab, "log", "server.log")
}

// Up returns the lab's cluster, running: it creates it (finding or downloading
// binaries, initdb) if the lab has none, and starts it if it is stopped.
func Up(ctx context.Context, opts Options) (*Cluster, error) {
	if err := ValidMajor(opts.Major); err != nil {
		return nil, problem.BadInput("pass --pg 13, 14, 15, 16, 17 or 18", "%v", err)
	}
	lab, err := filepath.Abs(opts.Lab)
	if err != nil {
		return nil, err
	}
	var c *Cluster
	if Exists(lab) {
		if c, err = Open(lab); err != nil {
			return nil, err
		}
		if opts.Major != 0 && opts.Major != c.Major {
			return nil, problem.BadInput(fmt.Sprintf("use --pg %d, another --lab, or 'pgoltp cluster destroy' first", c.Major),
				"the lab %s holds a PostgreSQL %d cluster, not %d", lab, c.Major, opts.Major)
		}
	} else if c, err = create(ctx, lab, opts); err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// binariesFor finds installed binaries of the major, or downloads them.
func binariesFor(ctx context.Context, opts Options) (Binaries, error) {
	cache := CacheDir()
	if b, ok := Find(opts.Major, cache); ok {
		return b, nil
	}
	major := opts.Major
	if major == 0 {
		major = SupportedMajors[len(SupportedMajors)-1]
	}
	if opts.Offline {
		return Binaries{}, problem.BadInput(fmt.Sprintf("install the PostgreSQL %d server package or allow the download", major),
			"no PostgreSQL %d binaries found", major)
	}
	b, err := Download(ctx, major, cache, opts.Progress)
	if err != nil {
		return Binaries{}, problem.Wrap(err,
			fmt.Sprintf("install the PostgreSQL %d server package (e.g. apt-get install postgresql-%d) or restore network access to Maven Central", major, major),
			"no PostgreSQL %d binaries found and the download failed", major)
	}
	return b, nil
}

func create(ctx context.Context, lab string, opts Options) (*Cluster, error) {
	u, err := resolveServerUser(opts.RunAs)
	if err != nil {
		return nil, err
	}
	bins, err := binariesFor(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(lab, 0o755); err != nil {
		return nil, problem.Wrap(err, "choose another --lab", "cannot create the lab directory")
	}
	if err := u.canReach(ctx, lab); err != nil {
		return nil, err
	}
	c := &Cluster{BinDir: bins.Dir, Major: bins.Major, Version: bins.Version, RunAs: u.Name, user: u}
	c.fill(lab)
	if c.Port, err = freePort(); err != nil {
		return nil, err
	}
	c.SocketDir = socketDirFor(lab)
	pw := make([]byte, 16)
	if _, err := rand.Read(pw); err != nil {
		return nil, err
	}
	c.password = hex.EncodeToString(pw)

	for _, d := range []string{c.DataDir, filepath.Dir(c.LogFile), c.SocketDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
		if err := u.own(d); err != nil {
			return nil, err
		}
	}
	// Clients other than the server user (root, for one) must reach the socket.
	_ = os.Chmod(c.SocketDir, 0o755)

	if err := c.initdb(ctx); err != nil {
		_ = os.RemoveAll(c.DataDir)
		return nil, err
	}
	if err := c.writeConfig(); err != nil {
		return nil, err
	}
	if err := writePrivate(passwordPath(lab), c.password+"\n"); err != nil {
		return nil, err
	}
	if err := c.writePassFile(); err != nil {
		return nil, err
	}
	// The state file is written last: a lab without it has no cluster, so an
	// interrupted create is simply created again.
	return c, c.saveState()
}

func (c *Cluster) initdb(ctx context.Context) error {
	// initdb reads the password from a file the server user can read; it is
	// removed as soon as initdb is done.
	pwFile := filepath.Join(c.Lab, ".initdb-password")
	if err := writePrivate(pwFile, c.password+"\n"); err != nil {
		return err
	}
	defer os.Remove(pwFile)
	if err := c.user.own(pwFile); err != nil {
		return err
	}
	cmd := c.user.command(ctx, c.Lab, filepath.Join(c.BinDir, "initdb"),
		"-D", c.DataDir, "-U", Superuser, "--pwfile="+pwFile,
		"--auth-local=scram-sha-256", "--auth-host=scram-sha-256",
		"--encoding=UTF8", "--locale=C")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("initdb failed: %v: %s", err, lastLines(string(out), 3))
	}
	return nil
}

// writeConfig puts pgoltp's own settings in pgoltp.conf, included at the end of
// postgresql.conf; ALTER SYSTEM (postgresql.auto.conf) still overrides them.
func (c *Cluster) writeConfig() error {
	conf := fmt.Sprintf(`# Written by pgoltp. The managed server listens on its Unix socket and loopback only.
listen_addresses = '127.0.0.1'
port = %d
unix_socket_directories = '%s'
password_encryption = 'scram-sha-256'
shared_preload_libraries = 'pg_stat_statements'
track_io_timing = on
max_connections = 300
logging_collector = off
log_checkpoints = on
log_line_prefix = '%%m [%%p] '
`, c.Port, c.SocketDir)
	path := filepath.Join(c.DataDir, "pgoltp.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		return err
	}
	if err := c.user.own(path); err != nil {
		return err
	}
	main := filepath.Join(c.DataDir, "postgresql.conf")
	b, err := os.ReadFile(main)
	if err != nil {
		return err
	}
	if !strings.Contains(string(b), "include_if_exists = 'pgoltp.conf'") {
		f, err := os.OpenFile(main, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := f.WriteString("\ninclude_if_exists = 'pgoltp.conf'\n"); err != nil {
			return err
		}
	}
	return nil
}

func (c *Cluster) saveState() error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp := statePath(c.Lab) + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, statePath(c.Lab))
}

// DSN returns a superuser connection string for database db over the lab's
// Unix socket. It contains the password: never print it (see DisplayDSN).
func (c *Cluster) DSN(db string) string {
	return fmt.Sprintf("host=%s port=%d user=%s password=%s dbname=%s sslmode=disable",
		c.SocketDir, c.Port, Superuser, c.password, db)
}

// DisplayDSN is DSN without the password, for output. libpq programs find the
// password in the lab's pgpass file (PGPASSFILE).
func (c *Cluster) DisplayDSN(db string) string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s", c.SocketDir, c.Port, Superuser, db)
}

// writePassFile writes the lab's password file. libpq matches a Unix socket
// in a non-default directory by its path, pgx by "localhost": both are listed,
// with the loopback address.
func (c *Cluster) writePassFile() error {
	var b strings.Builder
	for _, host := range []string{c.SocketDir, "localhost", "127.0.0.1"} {
		fmt.Fprintf(&b, "%s:%d:*:%s:%s\n", host, c.Port, Superuser, c.password)
	}
	return writePrivate(c.PassFile(), b.String())
}

// PassFile is the lab's libpq password file.
func (c *Cluster) PassFile() string { return filepath.Join(c.Lab, "pgpass") }

// Running reports whether the server is up (pg_ctl status).
func (c *Cluster) Running(ctx context.Context) bool {
	cmd := c.user.command(ctx, c.Lab, filepath.Join(c.BinDir, "pg_ctl"), "status", "-D", c.DataDir)
	return cmd.Run() == nil
}

// Start starts the server if it is not running and waits until it accepts connections.
func (c *Cluster) Start(ctx context.Context) error {
	if c.Running(ctx) {
		return nil
	}
	if portBusy(c.Port) {
		// Someone else took our port while the cluster was down: move.
		p, err := freePort()
		if err != nil {
			return err
		}
		c.Port = p
		if err := c.writeConfig(); err != nil {
			return err
		}
		if err := c.saveState(); err != nil {
			return err
		}
		if err := c.writePassFile(); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(c.SocketDir, 0o755); err == nil {
		_ = c.user.own(c.SocketDir)
	}
	cmd := c.user.command(ctx, c.Lab, filepath.Join(c.BinDir, "pg_ctl"),
		"start", "-D", c.DataDir, "-l", c.LogFile, "-w", "-t", "300")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("starting PostgreSQL %s failed: %v: %s; server log %s: %s", c.Version, err,
			lastLines(string(out), 2), c.LogFile, lastLines(readTail(c.LogFile), 3))
	}
	return c.waitReady(ctx)
}

// waitReady waits until a superuser connection succeeds (pg_ctl -w only knows
// the postmaster is up; crash recovery may still be running).
func (c *Cluster) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(5 * time.Minute)
	var last error
	for time.Now().Before(deadline) {
		conn, err := pgx.Connect(ctx, c.DSN("postgres"))
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("PostgreSQL did not accept connections: %v", last)
}

// Stop stops the server (fast shutdown: transactions are rolled back, a
// checkpoint is written). Stopping a stopped server is not an error.
func (c *Cluster) Stop(ctx context.Context) error {
	if !c.Running(ctx) {
		return nil
	}
	cmd := c.user.command(ctx, c.Lab, filepath.Join(c.BinDir, "pg_ctl"),
		"stop", "-D", c.DataDir, "-m", "fast", "-w", "-t", "300")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("stopping PostgreSQL failed: %v: %s", err, lastLines(string(out), 2))
	}
	return nil
}

// Restart stops and starts the server.
func (c *Cluster) Restart(ctx context.Context) error {
	if err := c.Stop(ctx); err != nil {
		return err
	}
	return c.Start(ctx)
}

// Kill crashes the server on purpose: SIGKILL to the postmaster and every one of
// its children, with no shutdown checkpoint. The next Start runs crash recovery.
func (c *Cluster) Kill() error {
	b, err := os.ReadFile(filepath.Join(c.DataDir, "postmaster.pid"))
	if err != nil {
		return fmt.Errorf("server not running: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		return fmt.Errorf("bad postmaster.pid: %w", err)
	}
	children := childrenOf(pid)
	// The postmaster first, so that it cannot notice its children dying and
	// reinitialise; then every backend and auxiliary process at once.
	if err := kill(pid, syscall.SIGKILL); err != nil {
		return err
	}
	for _, ch := range children {
		_ = kill(ch, syscall.SIGKILL)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		alive := kill(pid, 0) == nil
		for _, ch := range children {
			alive = alive || kill(ch, 0) == nil
		}
		if !alive {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("server processes did not die after SIGKILL")
}

// Destroy stops the server and removes the cluster (data, logs, socket,
// password). Results and reports kept in the lab are left alone.
func (c *Cluster) Destroy(ctx context.Context) error {
	if err := c.Stop(ctx); err != nil {
		if kerr := c.Kill(); kerr != nil {
			return err
		}
	}
	for _, p := range []string{c.DataDir, filepath.Dir(c.LogFile), filepath.Join(c.Lab, "pgpass"), passwordPath(c.Lab), statePath(c.Lab)} {
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	_ = os.RemoveAll(c.SocketDir)
	// Remove the lab itself if nothing else (results, reports) is left in it.
	_ = os.Remove(c.Lab)
	return nil
}

// socketDirFor keeps the socket path under the kernel's 107-byte limit.
func socketDirFor(lab string) string {
	dir := filepath.Join(lab, "run")
	if len(dir)+len("/.s.PGSQL.65535") < 100 {
		return dir
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return filepath.Join(os.TempDir(), "pgoltp-"+hex.EncodeToString(b))
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func portBusy(port int) bool {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return true
	}
	l.Close()
	return false
}

func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var kids []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The command name may hold spaces and parentheses: fields start after the last ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 {
			if ppid, _ := strconv.Atoi(f[1]); ppid == pid {
				kids = append(kids, p)
			}
		}
	}
	return kids
}

func writePrivate(path, content string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func readTail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 4096 {
		b = b[len(b)-4096:]
	}
	return string(b)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
