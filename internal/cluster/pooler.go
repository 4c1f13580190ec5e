package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/field"
)

// The pooler (issue 31): Debian's pgbouncer in front of the primary, in
// transaction pooling, its files in LAB/pooler (owned by the server user,
// which runs it: pgbouncer refuses root), its log in log/pgbouncer.log and
// its socket in the server's socket directory. It listens on that socket and
// loopback only, and authenticates with SCRAM from its auth file (0600,
// never printed), which holds the cluster's password.

// PoolerPgBouncer is the one pooler pgoltp runs.
const PoolerPgBouncer = "pgbouncer"

// Pooler is the cluster's pooler, as cluster.json records it.
type Pooler struct {
	Kind    string `json:"kind"`
	Binary  string `json:"binary"`
	Version string `json:"version"`
	Port    int    `json:"port"`
}

// pgbouncerPaths are where pgbouncer is looked for before PATH: Debian's is
// in /usr/sbin, outside a user's PATH.
var pgbouncerPaths = []string{"/usr/sbin/pgbouncer", "/usr/bin/pgbouncer", "/usr/local/bin/pgbouncer"}

// pgbouncerBinary finds pgbouncer.
func pgbouncerBinary() (string, error) {
	for _, p := range pgbouncerPaths {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath("pgbouncer"); err == nil {
		return p, nil
	}
	return "", field.New("Pooler", PoolerPgBouncer, "{} pgbouncer: pgbouncer is not installed").
		Fix("install it (apt-get install pgbouncer) or drop {}")
}

// CheckPooler checks opts' pooler before anything is made: a known kind
// whose binary is installed.
func (o Options) CheckPooler() error {
	switch o.Pooler {
	case "":
		return nil
	case PoolerPgBouncer:
		_, err := pgbouncerBinary()
		return err
	default:
		return field.Bad("Pooler", o.Pooler, "is not a pooler pgoltp runs", PoolerPgBouncer)
	}
}

func poolerDir(lab string) string { return filepath.Join(lab, "pooler") }

func (c *Cluster) poolerFile(name string) string { return filepath.Join(poolerDir(c.Lab), name) }

func (c *Cluster) poolerLog() string { return filepath.Join(filepath.Dir(c.LogFile), "pgbouncer.log") }

// ensurePooler adds the pooler opts asks for (once) and starts it.
func (c *Cluster) ensurePooler(ctx context.Context, opts Options) error {
	if err := opts.CheckPooler(); err != nil {
		return err
	}
	if c.Pooler == nil && opts.Pooler != "" {
		bin, _ := pgbouncerBinary()
		out, err := exec.CommandContext(ctx, bin, "--version").Output()
		if err != nil {
			return fmt.Errorf("%s --version: %w", bin, err)
		}
		port, err := freePort()
		if err != nil {
			return err
		}
		version := strings.TrimPrefix(strings.SplitN(string(out), "\n", 2)[0], "PgBouncer ")
		c.Pooler = &Pooler{Kind: PoolerPgBouncer, Binary: bin, Version: strings.TrimSpace(version), Port: port}
		if err := c.saveState(); err != nil {
			return err
		}
		if err := c.writePassFile(); err != nil {
			return err
		}
	}
	if c.Pooler == nil {
		return nil
	}
	return c.startPooler(ctx)
}

// preparedStatements says whether the pgbouncer version keeps protocol-level
// prepared statements in transaction pooling (max_prepared_statements, 1.21).
func (p *Pooler) preparedStatements() bool { return p.atLeast(21) }

// KeepsPreparedStatements says whether clients may prepare named
// statements through the pooler (preparedStatements): a workload that does
// (TPC-B as experiments run it, pgbench -M prepared) fails otherwise.
func (p *Pooler) KeepsPreparedStatements() bool { return p.preparedStatements() }

// TracksSessionParameters says whether the pgbouncer version passes startup
// parameters such as default_transaction_isolation on to every server
// connection a client gets (track_extra_parameters, 1.20); older ones refuse
// a client that sets one.
func (p *Pooler) TracksSessionParameters() bool { return p.atLeast(20) }

// atLeast says whether the version is 1.minor or later.
func (p *Pooler) atLeast(minor int) bool {
	m := regexp.MustCompile(`^(\d+)\.(\d+)`).FindStringSubmatch(p.Version)
	if m == nil {
		return false
	}
	ma, _ := strconv.Atoi(m[1])
	mi, _ := strconv.Atoi(m[2])
	return ma > 1 || ma == 1 && mi >= minor
}

// poolerConfig is pgbouncer.ini.
func (c *Cluster) poolerConfig() string {
	conf := fmt.Sprintf(`; Written by pgoltp: transaction pooling in front of the lab's primary.
[databases]
* = host=%[1]s port=%[2]d

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %[3]d
unix_socket_dir = %[1]s
auth_type = scram-sha-256
auth_file = %[4]s
admin_users = %[5]s
stats_users = %[5]s
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 100
ignore_startup_parameters = extra_float_digits,default_query_exec_mode
logfile = %[6]s
pidfile = %[7]s
`, c.SocketDir, c.Port, c.Pooler.Port, c.poolerFile("userlist.txt"), Superuser, c.poolerLog(), c.poolerFile("pgbouncer.pid"))
	if c.Pooler.TracksSessionParameters() {
		conf += "track_extra_parameters = IntervalStyle,search_path,default_transaction_isolation\n"
	}
	if c.Pooler.preparedStatements() {
		conf += "max_prepared_statements = 200\n"
	}
	return conf
}

// writePoolerFiles writes the pooler's directory, configuration and auth file
// (0600, the server user's), never through a symlink.
func (c *Cluster) writePoolerFiles() error {
	dir := poolerDir(c.Lab)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	if err := checkLabDir(dir); err != nil {
		return err
	}
	if err := c.user.own(dir); err != nil {
		return err
	}
	files := map[string]string{
		"pgbouncer.ini": c.poolerConfig(),
		"userlist.txt":  fmt.Sprintf("%q %q\n", Superuser, c.password),
	}
	for name, content := range files {
		if err := writePrivate(c.poolerFile(name), content); err != nil {
			return err
		}
		if err := c.user.own(c.poolerFile(name)); err != nil {
			return err
		}
	}
	return nil
}

// PoolerRunning says whether the pooler's process is up.
func (c *Cluster) PoolerRunning() bool {
	pid, err := c.poolerPID()
	return err == nil && alive(pid)
}

// poolerPID is the pid pgbouncer recorded, checked to be the server user's
// pgbouncer (a stale file may name any process).
func (c *Cluster) poolerPID() (int, error) {
	b, err := os.ReadFile(c.poolerFile("pgbouncer.pid"))
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, err
	}
	uid, exe, err := processOf(pid)
	if err != nil {
		return 0, err
	}
	want, _ := filepath.EvalSymlinks(c.Pooler.Binary)
	if uid != c.user.UID || exe != want {
		return 0, fmt.Errorf("pid %d is not the lab's pgbouncer", pid)
	}
	return pid, nil
}

// startPooler (re)writes the pooler's files and starts pgbouncer as the
// server user, unless it runs; it waits until it accepts a connection.
func (c *Cluster) startPooler(ctx context.Context) error {
	if c.PoolerRunning() {
		return nil
	}
	if portBusy(c.Pooler.Port) {
		p, err := freePort()
		if err != nil {
			return err
		}
		c.Pooler.Port = p
		if err := c.saveState(); err != nil {
			return err
		}
		if err := c.writePassFile(); err != nil {
			return err
		}
	}
	if err := c.writePoolerFiles(); err != nil {
		return err
	}
	cmd := c.user.command(ctx, c.Lab, c.Pooler.Binary, "-d", c.poolerFile("pgbouncer.ini"))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("starting pgbouncer failed: %v: %s; log %s: %s", err, lastLines(string(out), 2),
			c.poolerLog(), lastLines(readTail(c.poolerLog()), 3))
	}
	var last error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		// pgconn, not adminconn: pgbouncer refuses the startup parameters adminconn pins.
		conn, err := pgconn.Connect(ctx, c.PoolerDSN("postgres"))
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		last = err
	}
	return fmt.Errorf("pgbouncer did not accept connections: %v; log %s", last, c.poolerLog())
}

// stopPooler stops pgbouncer (SIGTERM, then SIGKILL after 10 s).
func (c *Cluster) stopPooler() error {
	if c.Pooler == nil {
		return nil
	}
	pid, err := c.poolerPID()
	if err != nil {
		return nil // not running
	}
	_ = kill(pid, syscall.SIGTERM)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if !alive(pid) {
			return nil
		}
	}
	_ = kill(pid, syscall.SIGKILL)
	return nil
}

// removePooler removes the pooler's files (its directory only if that leaves it empty).
func (c *Cluster) removePooler() {
	for _, name := range []string{"pgbouncer.ini", "userlist.txt", "pgbouncer.pid"} {
		_ = os.Remove(c.poolerFile(name))
	}
	_ = os.Remove(poolerDir(c.Lab))
	_ = os.Remove(c.poolerLog())
}

// PoolerDSN is DSN through the pooler; "" when the cluster has none. Before
// pgbouncer 1.21 a named prepared statement does not survive transaction
// pooling (pgx's default, cache_statement, then fails with 42P05 or 26000:
// the statement is on another server connection). pgx then uses
// cache_describe (a DSN parameter pgx reads and pgbouncer is told to
// ignore, when pgconn alone passes it on): every execution parses the
// unnamed statement anew in the same message group as its Bind and Execute,
// so no server connection keeps anything between transactions, while the
// description pgx caches per client connection keeps the server's
// parameter types and binary formats, as on the direct path. exec and the
// simple protocol are correct as well (issue 31's measurement, TPC-C on
// both paths, consistency check passed) but send text and infer the
// parameters' types from Go's.
func (c *Cluster) PoolerDSN(db string) string {
	if c.Pooler == nil {
		return ""
	}
	dsn := fmt.Sprintf("host=%s port=%d user=%s password=%s dbname=%s sslmode=disable connect_timeout=%d",
		dsnQuote(c.SocketDir), c.Pooler.Port, Superuser, dsnQuote(c.password), dsnQuote(db), int(ConnectTimeout/time.Second))
	if !c.Pooler.preparedStatements() {
		dsn += " default_query_exec_mode=cache_describe"
	}
	return dsn
}

// PoolerAdminDSN is the pooler's admin console (SHOW STATS, SHOW POOLS).
func (c *Cluster) PoolerAdminDSN() string { return c.PoolerDSN("pgbouncer") }
