// Package pgtest gives tests a real PostgreSQL server: the managed cluster of
// internal/cluster, started once per test binary, or an existing server named by
// PGOLTP_TEST_DSN. Each test gets its own database, dropped when it ends. There is
// no mock of the database anywhere in pgoltp; this is the fixture instead.
//
// Use it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }
package pgtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/pgtest/pgbench"
)

// EnvDSN names an existing server to test against instead of a managed cluster.
const EnvDSN = "PGOLTP_TEST_DSN"

var (
	once     sync.Once
	shared   *cluster.Cluster
	adminDSN string
	startErr error
	dbSeq    atomic.Int64
)

// Run runs the tests and stops the managed cluster afterwards, if one was started.
func Run(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := shared.Destroy(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest: destroying the test cluster:", err)
		} else {
			_ = os.RemoveAll(shared.Lab) // pgtest's own directory, with its owner file
		}
	}
	return code
}

func start() {
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		adminDSN = dsn
		return
	}
	for _, dir := range reapOrphans(baseDir()) {
		fmt.Fprintln(os.Stderr, "pgtest: destroyed the test cluster a killed test process left in", dir)
	}
	dir, err := reachableDir("lab-")
	if err != nil {
		startErr = err
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	opts := cluster.Options{Lab: dir, Major: testMajor()}
	c, err := cluster.Up(ctx, opts)
	if err != nil {
		startErr = err
		return
	}
	shared = c
	adminDSN = c.DSN("postgres")
}

func testMajor() int {
	var m int
	if v := os.Getenv("PGOLTP_TEST_PG"); v != "" {
		fmt.Sscan(v, &m)
	}
	return m
}

// reachableDir makes a directory the unprivileged server user can enter when
// the tests run as root: t.TempDir (0700) is exactly what it could not.
// Each carries the owner file that lets a later test process reap what a
// killed one left.
func reachableDir(prefix string) (string, error) {
	base := baseDir()
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", err
	}
	_ = os.Chmod(base, 0o755)
	dir, err := os.MkdirTemp(base, prefix)
	if err != nil {
		return "", err
	}
	if err := markOwner(dir); err != nil {
		return "", err
	}
	return dir, os.Chmod(dir, 0o755)
}

// baseDir holds every directory pgtest makes.
func baseDir() string { return filepath.Join(os.TempDir(), "pgoltp-test") }

// LabDir returns a path for a lab of this test's own (not yet created, so
// that commands create it), in a directory the server user can reach.
func LabDir(t testing.TB) string {
	t.Helper()
	dir, err := reachableDir("lab-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "lab")
}

// AdminDSN returns a superuser DSN of the shared test server, starting it if needed.
func AdminDSN(t testing.TB) string {
	t.Helper()
	once.Do(start)
	if startErr != nil {
		t.Fatalf("pgtest: starting PostgreSQL: %v", startErr)
	}
	return adminDSN
}

// Cluster returns the shared managed cluster, or skips the test when the tests
// run against an external server (PGOLTP_TEST_DSN) that pgoltp does not own.
func Cluster(t testing.TB) *cluster.Cluster {
	t.Helper()
	AdminDSN(t)
	if shared == nil {
		t.Skip("needs the managed cluster; " + EnvDSN + " points at an external server")
	}
	return shared
}

// NewDatabase creates an empty database for this test and returns its DSN. The
// database is dropped when the test ends.
func NewDatabase(t testing.TB) string {
	t.Helper()
	admin := AdminDSN(t)
	name := fmt.Sprintf("t_%s_%d_%d", sanitize(t.Name()), os.Getpid(), dbSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("pgtest: connecting to the test server: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("pgtest: creating database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			return
		}
		defer conn.Close(ctx)
		_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	})
	return withDatabase(admin, name)
}

// Conn creates an empty database for this test (as NewDatabase) and returns a
// connection to it and its DSN. The connection is closed, then the database
// dropped, when the test ends.
func Conn(t testing.TB) (*pgx.Conn, string) {
	t.Helper()
	dsn := NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("pgtest: connecting to the test database: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn, dsn
}

// withDatabase replaces the database of a URL or key=value DSN.
func withDatabase(dsn, db string) string {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return dsn
	}
	if strings.Contains(dsn, "://") {
		// URL form: rebuild with the new path, keeping the query.
		i := strings.Index(dsn, "://")
		rest := dsn[i+3:]
		q := ""
		if j := strings.IndexByte(rest, '?'); j >= 0 {
			rest, q = rest[:j], rest[j:]
		}
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			rest = rest[:j]
		}
		return dsn[:i+3] + rest + "/" + db + q
	}
	_ = cfg
	return dsn + " dbname=" + db
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		if b.Len() >= 30 {
			break
		}
	}
	return b.String()
}

// Pgbench returns the pgbench the compatibility tests run: the one in the test
// cluster's bin directory, else on PATH, else next to an installed server. It
// skips the test when there is none.
func Pgbench(t testing.TB) string {
	t.Helper()
	AdminDSN(t)
	var dirs []string
	if shared != nil {
		dirs = append(dirs, shared.BinDir)
	}
	p, err := pgbench.Find(dirs...)
	if err != nil {
		t.Skip(err.Error() + ": the pgbench compatibility tests need it")
	}
	return p
}
