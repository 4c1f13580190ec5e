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
//	run/           the Unix socket (or a fresh directory under /tmp if the lab path is long)
//	pgoltp.lock    held (flock) by the command that changes the cluster (see LockLab)
//	.pgoltp-creating, .initdb-password  only while a create runs (see initdb.go)
//
// pgoltp removes only what it created (see safety.go): a data directory it did
// not initialise is refused, never wiped.
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

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/pgoltp/pgoltp/internal/problem"
)

// Superuser is the name of the cluster's superuser.
const Superuser = "postgres"

// Options say which cluster to manage and how to create it.
type Options struct {
	Lab      string    // lab directory (created if missing)
	Major    int       // PostgreSQL major; 0 = the default (see DefaultBinaries)
	RunAs    string    // OS user for the server when running as root; "" = postgres
	Progress io.Writer // download progress and notes; nil = quiet
	Offline  bool      // never download; fail if no binaries are installed
	PgBin    string    // an installation of the user's own (--pg-bin): its bin directory
	Build    string    // a build of 'pgoltp build' (--build): its name
	Standbys int       // streaming standbys wanted (0 = those the lab has); see standby.go
	Sync     string    // synchronous replication: SyncQuorum, SyncFirst, SyncOff; "" = as it is
	Pooler   string    // "pgbouncer" to run one in front of the primary; "" = as it is
}

// Cluster is a managed PostgreSQL cluster.
type Cluster struct {
	Lab       string `json:"-"`
	BinDir    string `json:"bin_dir"`
	Major     int    `json:"major"`
	Version   string `json:"version"`
	Source    string `json:"source,omitempty"` // system, download, --pg-bin or build
	Build     *Build `json:"build,omitempty"`  // how it was built, for a build of 'pgoltp build'
	Port      int    `json:"port"`
	SocketDir string `json:"socket_dir"`
	RunAs     string `json:"run_as"`
	DataDir   string `json:"-"`
	LogFile   string `json:"-"`

	Standbys []Standby `json:"standbys,omitempty"`
	Sync     string    `json:"sync,omitempty"`
	Pooler   *Pooler   `json:"pooler,omitempty"`

	user     serverUser
	password string
	primary  *Cluster // set on a standby node (see node)
	name     string   // a standby node's name
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
	if err := verifyBinDir(c.BinDir); err != nil {
		return nil, err
	}
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
		return nil, problem.BadInput(fmt.Sprintf("pass --pg %d to %d", SupportedMajors[0], SupportedMajors[len(SupportedMajors)-1]), "%v", err)
	}
	if opts.Build != "" && opts.PgBin != "" {
		return nil, problem.BadInput("give one of them", "--build and --pg-bin both name the installation to run on")
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
		if err := checkLabDirs(lab); err != nil {
			return nil, err
		}
		if err := sameBinaries(c, opts.PgBin); err != nil {
			return nil, err
		}
		if err := sameBuild(c, opts.Build); err != nil {
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
	if err := c.ensureReplicas(ctx, opts); err != nil {
		return nil, err
	}
	if err := c.ensurePooler(ctx, opts); err != nil {
		return nil, err
	}
	return c, nil
}

// binariesFor finds installed binaries of the major (without one, see
// DefaultBinaries), or downloads them.
func binariesFor(ctx context.Context, opts Options) (Binaries, error) {
	if opts.PgBin != "" {
		return userBinaries(opts.PgBin, opts.Major)
	}
	cache := CacheDir()
	if err := checkCache(cache); err != nil {
		return Binaries{}, err
	}
	major := opts.Major
	if major == 0 {
		if b, ok := DefaultBinaries(); ok {
			return b, nil
		}
		major = DefaultMajor
	}
	if b, ok := Find(major, cache); ok {
		return b, nil
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

// create makes a new cluster in lab: binaries, directories, initdb, the
// configuration and the password files. On failure it removes what it
// created and nothing else.
func create(ctx context.Context, lab string, opts Options) (c *Cluster, err error) {
	if c, err = prepareCreate(ctx, lab, opts); err != nil {
		return nil, err
	}
	made := &createdFiles{dataDir: c.DataDir}
	defer func() {
		if err != nil {
			made.remove()
		}
	}()
	if err := c.makeDirs(made); err != nil {
		return nil, err
	}
	if err := c.recordCreating(made); err != nil {
		return nil, err
	}
	if err := c.initdb(ctx); err != nil {
		return nil, err
	}
	if err := writeNew(markerPath(c.DataDir), "created by pgoltp for the lab "+lab+"\n"); err != nil {
		return nil, err
	}
	if err := c.writeConfig(); err != nil {
		return nil, err
	}
	made.paths = append(made.paths, passwordPath(lab), c.PassFile(), statePath(lab))
	if err := writePrivate(passwordPath(lab), c.password+"\n"); err != nil {
		return nil, err
	}
	if err := c.writePassFile(); err != nil {
		return nil, err
	}
	// The state file is written last: a lab without it has no cluster, and a
	// data directory the creating record names, or a marked one, without it
	// is an interrupted create, done again.
	if err := c.saveState(); err != nil {
		return nil, err
	}
	_ = os.Remove(creatingPath(lab)) // one left behind is stale, and the next create removes it
	return c, nil
}

// prepareCreate is the part of create that writes nothing but the lab
// directory: the server user, the lab's claim, the binaries, a free port and
// a new password.
func prepareCreate(ctx context.Context, lab string, opts Options) (*Cluster, error) {
	u, err := resolveServerUser(opts.RunAs)
	if err != nil {
		return nil, err
	}
	if _, err := ensureLab(lab); err != nil {
		return nil, err
	}
	c := &Cluster{RunAs: u.Name, user: u}
	c.fill(lab)
	if err := c.claimLab(); err != nil {
		return nil, err
	}
	var bins Binaries
	if opts.Build != "" {
		bins, c.Build, err = builtBinaries(opts.Build, opts.Major)
	} else {
		bins, err = binariesFor(ctx, opts)
	}
	if err != nil {
		return nil, err
	}
	if err := u.canReach(ctx, lab); err != nil {
		return nil, err
	}
	c.BinDir, c.Major, c.Version, c.Source = bins.Dir, bins.Major, bins.Version, bins.Source
	if c.Port, err = freePort(); err != nil {
		return nil, err
	}
	pw := make([]byte, 16)
	if _, err := rand.Read(pw); err != nil {
		return nil, err
	}
	c.password = hex.EncodeToString(pw)
	return c, nil
}

// createdFiles is what a create made, to remove on failure: that and nothing
// else.
type createdFiles struct {
	paths   []string // in the order made
	emptied string   // a directory that existed empty and was filled
	dataDir string   // removed whole, unlike the other directories
	record  string   // the creating record, removed last
}

func (m *createdFiles) remove() {
	if m.emptied != "" {
		removeContents(m.emptied)
	}
	for i := len(m.paths) - 1; i >= 0; i-- {
		if m.paths[i] == m.dataDir {
			_ = os.RemoveAll(m.paths[i])
		} else {
			_ = os.Remove(m.paths[i]) // directories only if empty
		}
	}
	if m.record != "" {
		_ = os.Remove(m.record)
	}
}

// mkdir makes d for the server user unless it exists, noting it in m.
func (m *createdFiles) mkdir(d string, u serverUser) error {
	if _, err := os.Lstat(d); errors.Is(err, os.ErrNotExist) {
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
		m.paths = append(m.paths, d)
	}
	return u.own(d)
}

// makeDirs makes the data, log and socket directories of a new cluster.
func (c *Cluster) makeDirs(m *createdFiles) (err error) {
	if err := m.mkdir(c.DataDir, c.user); err != nil {
		return err
	}
	if len(m.paths) == 0 {
		m.emptied = c.DataDir // it existed, empty (claimLab checked): initdb fills it
	}
	if err := m.mkdir(filepath.Dir(c.LogFile), c.user); err != nil {
		return err
	}
	_, runErr := os.Lstat(filepath.Join(c.Lab, "run"))
	if c.SocketDir, err = newSocketDir(c.Lab, c.user); err != nil {
		return err
	}
	if c.SocketDir != filepath.Join(c.Lab, "run") || runErr != nil {
		m.paths = append(m.paths, c.SocketDir)
	}
	return nil
}

// claimLab refuses a lab holding what pgoltp did not create: a non-empty data
// directory that is neither named by pgoltp's creating record nor marked, or
// a password file without a cluster. A data directory the record names, or a
// marked one, without cluster.json is an interrupted create of pgoltp's own
// (killed during initdb, or after): it is removed and created again.
func (c *Cluster) claimLab() error {
	if err := checkLabDirs(c.Lab); err != nil {
		return err
	}
	exists, empty, err := isEmptyDir(c.DataDir)
	if err != nil {
		return problem.Wrap(err, "choose another --lab", "cannot read %s", c.DataDir)
	}
	rec, recorded := readCreating(c.Lab)
	if exists && !empty {
		_, markErr := os.Lstat(markerPath(c.DataDir))
		ours := recorded && rec.names(c.DataDir, c.user)
		if !ours && markErr != nil {
			return problem.BadInput("move it away, or choose another --lab",
				"refusing to use %s: it is not empty and pgoltp did not create it", c.DataDir)
		}
		if err := waitUnused(c.DataDir); err != nil {
			return err
		}
		if ours {
			err = rec.startOver(c.DataDir)
		} else {
			err = os.RemoveAll(c.DataDir)
		}
		if err != nil {
			return err
		}
		for _, p := range []string{passwordPath(c.Lab), c.PassFile()} {
			_ = os.Remove(p)
		}
	}
	for _, p := range []string{passwordPath(c.Lab), c.PassFile()} {
		if _, err := os.Lstat(p); err == nil {
			return problem.BadInput("move it away, or choose another --lab",
				"refusing to overwrite %s: pgoltp did not create it", p)
		}
	}
	// What a killed create left besides the data directory: its record and
	// initdb's password file.
	for _, p := range []string{creatingPath(c.Lab), initdbPasswordPath(c.Lab)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// newSocketDir returns the directory for the server's socket: run/ in the lab,
// or, when that path is too long for a socket (107 bytes), a directory under
// /tmp created fresh (never one that already exists: anyone may create there).
func newSocketDir(lab string, u serverUser) (string, error) {
	dir := filepath.Join(lab, "run")
	if len(dir)+len("/.s.PGSQL.65535") < 100 {
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return "", err
		}
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			return "", problem.BadInput("move it away, or choose another --lab",
				"refusing %s: it is not a directory (or a symlink), and pgoltp did not create it", dir)
		}
	} else {
		var err error
		if dir, err = os.MkdirTemp("", "pgoltp-"); err != nil {
			return "", err
		}
	}
	if err := u.own(dir); err != nil {
		return "", err
	}
	// Clients other than the server user (root, for one) must reach the socket.
	return dir, os.Chmod(dir, 0o755)
}

// ensureSocketDir makes sure the socket directory exists and is the server
// user's before a start. A /tmp one that vanished (reboot) or was replaced by
// someone else is not re-used: a fresh one is made and recorded.
func (c *Cluster) ensureSocketDir() error {
	if filepath.Dir(c.SocketDir) == c.Lab {
		_, err := newSocketDir(c.Lab, c.user)
		return err
	}
	if fi, err := os.Lstat(c.SocketDir); err == nil && fi.IsDir() && fi.Mode().Perm()&0o022 == 0 {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == c.user.UID {
			return nil
		}
	}
	dir, err := newSocketDir(c.Lab, c.user)
	if err != nil {
		return err
	}
	c.SocketDir = dir
	if err := c.writeConfig(); err != nil {
		return err
	}
	if err := c.saveState(); err != nil {
		return err
	}
	return c.writePassFile()
}

// removeContents empties dir (one that existed, empty, before this call filled it).
func removeContents(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		_ = os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// writeNew creates a file that must not exist yet.
func writeNew(path, content string) error {
	return writeNoFollow(path, content, os.O_EXCL, 0o644)
}

// writeConfig puts pgoltp's own settings in pgoltp.conf, included at the end of
// postgresql.conf; ALTER SYSTEM (postgresql.auto.conf) still overrides them.
func (c *Cluster) writeConfig() error {
	conf := fmt.Sprintf(`# Written by pgoltp. The managed server listens on its Unix socket and loopback only.
listen_addresses = '127.0.0.1'
port = %d
unix_socket_directories = %s
password_encryption = 'scram-sha-256'
shared_preload_libraries = 'pg_stat_statements'
track_io_timing = on
max_connections = 300
logging_collector = off
log_checkpoints = on
log_line_prefix = '%%m [%%p] '
`, c.Port, confQuote(socketDirList(c.SocketDir))) + c.replicationConf()
	if err := c.user.writeInData(filepath.Join(c.DataDir, "pgoltp.conf"), conf, os.O_CREATE|os.O_WRONLY|os.O_TRUNC); err != nil {
		return err
	}
	f, err := c.user.openInData(filepath.Join(c.DataDir, "postgresql.conf"), os.O_RDWR|os.O_APPEND)
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	if !strings.Contains(string(b), "include_if_exists = 'pgoltp.conf'") {
		if _, err := f.WriteString("\ninclude_if_exists = 'pgoltp.conf'\n"); err != nil {
			return err
		}
	}
	return f.Close()
}

// confQuote quotes a postgresql.conf string value (a quote is doubled).
func confQuote(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

// socketDirList makes one directory an element of unix_socket_directories,
// a comma-separated list whose elements may be double-quoted.
func socketDirList(dir string) string { return `"` + strings.ReplaceAll(dir, `"`, `""`) + `"` }

// dsnQuote quotes a key=value connection string value.
func dsnQuote(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// ConnectTimeout bounds every connection to the managed cluster.
const ConnectTimeout = 10 * time.Second

func (c *Cluster) saveState() error {
	if p := c.primary; p != nil { // a standby node: its port and socket are the primary's record
		for i := range p.Standbys {
			if p.Standbys[i].Name == c.name {
				p.Standbys[i].Port = c.Port
			}
		}
		p.SocketDir = c.SocketDir
		return p.saveState()
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp := statePath(c.Lab) + ".tmp"
	_ = os.Remove(tmp)
	f, err := openNoFollow(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, statePath(c.Lab))
}

// DSN returns a superuser connection string for database db over the lab's
// Unix socket. It contains the password: never print it (see DisplayDSN).
func (c *Cluster) DSN(db string) string {
	return fmt.Sprintf("host=%s port=%d user=%s password=%s dbname=%s sslmode=disable connect_timeout=%d",
		dsnQuote(c.SocketDir), c.Port, Superuser, dsnQuote(c.password), dsnQuote(db), int(ConnectTimeout/time.Second))
}

// DisplayDSN is DSN without the password, for output. libpq programs find the
// password in the lab's pgpass file (PGPASSFILE).
func (c *Cluster) DisplayDSN(db string) string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s connect_timeout=%d",
		dsnQuote(c.SocketDir), c.Port, Superuser, dsnQuote(db), int(ConnectTimeout/time.Second))
}

// writePassFile writes the lab's password file. libpq matches a Unix socket
// in a non-default directory by its path, pgx by "localhost": both are listed,
// with the loopback address, for the primary, each standby and the pooler.
func (c *Cluster) writePassFile() error {
	if c.primary != nil {
		return c.primary.writePassFile()
	}
	ports := []int{c.Port}
	for _, s := range c.Standbys {
		ports = append(ports, s.Port)
	}
	if c.Pooler != nil {
		ports = append(ports, c.Pooler.Port)
	}
	var b strings.Builder
	for _, port := range ports {
		for _, host := range []string{c.SocketDir, "localhost", "127.0.0.1"} {
			fmt.Fprintf(&b, "%s:%d:*:%s:%s\n", pgpassEscape(host), port, Superuser, c.password)
		}
	}
	return writePrivate(c.PassFile(), b.String())
}

func pgpassEscape(v string) string { return strings.NewReplacer(`\`, `\\`, `:`, `\:`).Replace(v) }

// PassFile is the lab's libpq password file.
func (c *Cluster) PassFile() string { return filepath.Join(c.Lab, "pgpass") }

// Running reports whether the server is up (pg_ctl status); a postmaster
// that is a zombie is not (pg_ctl thinks it is).
func (c *Cluster) Running(ctx context.Context) bool {
	cmd := c.user.command(ctx, c.Lab, filepath.Join(c.BinDir, "pg_ctl"), "status", "-D", c.DataDir)
	if cmd.Run() != nil {
		return false
	}
	pid, err := postmasterPID(c.DataDir)
	return err != nil || !isZombie(pid)
}

// Start starts the server if it is not running and waits until it accepts connections.
func (c *Cluster) Start(ctx context.Context) error {
	if c.Running(ctx) {
		return nil
	}
	if err := c.clearDeadPostmaster(ctx); err != nil {
		return err
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
	if err := c.ensureSocketDir(); err != nil {
		return err
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
		conn, err := adminconn.Connect(ctx, c.DSN("postgres"))
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
	if err := c.ownsProcess(pid); err != nil {
		return err
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
		running := alive(pid) // a zombie is dead: its parent may never reap it
		for _, ch := range children {
			running = running || alive(ch)
		}
		if !running {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("server processes did not die after SIGKILL")
}

// ownsProcess checks that pid is this cluster's postmaster before it is
// signalled: a stale postmaster.pid may name any process by now.
func (c *Cluster) ownsProcess(pid int) error {
	uid, exe, err := processOf(pid)
	if err != nil {
		return fmt.Errorf("server not running: no process %d: %w", pid, err)
	}
	want, err := filepath.EvalSymlinks(filepath.Join(c.BinDir, "postgres"))
	if err != nil {
		return err
	}
	if uid != c.user.UID || exe != want {
		return fmt.Errorf("refusing to signal process %d: postmaster.pid names a process of uid %d running %s, not the server (%s as uid %d)",
			pid, uid, exe, want, c.user.UID)
	}
	return nil
}

// Destroy stops the server and removes what pgoltp created for the cluster:
// the data directory (only with pgoltp's marker), the server log, the state,
// password and lock files, and the socket and log directories if that leaves
// them empty. Anything else in the lab (results, reports, a user's files) stays.
func (c *Cluster) Destroy(ctx context.Context) error {
	if err := checkLabDirs(c.Lab); err != nil {
		return err
	}
	if exists, empty, _ := isEmptyDir(c.DataDir); exists && !empty {
		if _, err := os.Lstat(markerPath(c.DataDir)); err != nil {
			return problem.BadInput("remove it yourself if it is no longer needed",
				"refusing to remove %s: it has no pgoltp marker (%s)", c.DataDir, ownedMarker)
		}
	}
	if err := c.stopPooler(); err != nil {
		return err
	}
	if err := c.Stop(ctx); err != nil {
		if kerr := c.Kill(); kerr != nil {
			return err
		}
	}
	if err := c.destroyStandbys(ctx); err != nil {
		return err
	}
	c.removePooler()
	if err := os.RemoveAll(c.DataDir); err != nil {
		return err
	}
	for _, p := range []string{c.LogFile, c.PassFile(), passwordPath(c.Lab), statePath(c.Lab), statePath(c.Lab) + ".tmp"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	// Directories only when empty: a file someone put there is not ours.
	_ = os.Remove(filepath.Dir(c.LogFile))
	_ = os.Remove(c.SocketDir)
	if holdsLock(c.Lab) {
		// LockLab re-checks the file it locked, so removing it while held is safe.
		_ = os.Remove(lockPath(c.Lab))
	}
	_ = os.Remove(c.Lab)
	return nil
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
