package pgbench

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestTransactionsAllocateNothing: the run engine speaks to the server
// itself (wire.go), in its thread loops (loop.go), so a transaction of the
// built-in select-only script in each query mode allocates (almost)
// nothing; through pgconn, with a goroutine per client, each cost 3-10
// allocations, a share of the 1.2-1.6x pgbench's CPU per transaction in
// bench/RESULTS.md. So does bench/pgbench.sh's custom script (\gset of a
// row and \if on it), whose row value and column name cost an allocation
// per transaction when they were kept as new strings. Counted as the
// difference between two runs, so that connecting and the summary cancel
// out.
func TestTransactionsAllocateNothing(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	var e bytes.Buffer
	if code := Main(context.Background(), []string{"-i", "-q", "-s", "1", dsn}, Env{Stdout: &e, Stderr: &e, Getenv: os.Getenv}); code != 0 {
		t.Fatalf("init: %s", e.String())
	}
	custom, err := filepath.Abs(filepath.Join("testdata", "custom.sql")) // bench/pgbench.sh's case c too
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct{ mode, script string }{{"simple", "-S"}, {"extended", "-S"}, {"prepared", "-S"}, {"simple", custom}, {"prepared", custom}} {
		mode := run.mode
		script := []string{"-S"}
		if run.script != "-S" {
			script = []string{"-f", run.script}
		}
		mallocs := func(perClient int) uint64 {
			var out bytes.Buffer
			args := append(append([]string{"-n", "-M", mode, "-c", "2", "-j", "1", "-t", strconv.Itoa(perClient)}, script...), dsn)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			if code := Main(context.Background(), args, Env{Stdout: &out, Stderr: &out, Getenv: os.Getenv}); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, out.String())
			}
			runtime.ReadMemStats(&after)
			return after.Mallocs - before.Mallocs
		}
		const few, many = 100, 2100
		small, large := mallocs(few), mallocs(many)
		perTx := (float64(large) - float64(small)) / (2 * (many - few))
		t.Logf("-M %s %s: %d allocations for %d transactions, %d for %d: %.3f per transaction", mode, script, small, 2*few, large, 2*many, perTx)
		if perTx > 0.5 {
			t.Errorf("-M %s %s: %.2f allocations per transaction, want under 0.5", mode, script, perTx)
		}
	}
}

// TestLongPipelineDoesNotDeadlock: a pipeline whose statements and answers
// both overflow the sockets' buffers completes, because the client reads
// what the server sends while its own writes wait (conn.flush); otherwise
// both sides would block on write forever (and the test's context would
// end the run with 130).
func TestLongPipelineDoesNotDeadlock(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	var script strings.Builder
	script.WriteString("\\startpipeline\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&script, "SELECT repeat('x', 2000), %d;\n", i)
	}
	script.WriteString("\\endpipeline\n")
	f := writeScript(t, "long.sql", script.String())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, mode := range []string{"extended", "prepared"} {
		var out bytes.Buffer
		code := Main(ctx, []string{"-n", "-M", mode, "-c", "2", "-t", "2", "-f", f, dsn}, Env{Stdout: &out, Stderr: &out, Getenv: os.Getenv})
		if code != 0 || !strings.Contains(out.String(), "number of transactions actually processed: 4/4") {
			t.Fatalf("-M %s: exit %d:\n%s", mode, code, out.String())
		}
	}
}

// wrappedConn hides a socket's type, as a TLS connection does: the run
// engine must read it blocking (conn.nc).
type wrappedConn struct{ net.Conn }

// TestInterruptEndsBlockingRead: on a connection that is not a plain socket
// (TLS), a client's read blocks its thread loop, so an interruption must
// cancel the statement and end the read itself, as pgconn's context
// watching did; before, SIGINT during a 30 s statement over TLS waited the
// 30 s.
func TestInterruptEndsBlockingRead(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	dial := cfg.DialFunc
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := dial(ctx, network, addr)
		return wrappedConn{nc}, err
	}
	pc, err := pgconn.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c, err := takeOver(ctx, pc)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if c.nc == nil {
		t.Fatal("a wrapped connection was taken over as a plain socket")
	}
	c.query([]byte("SELECT pg_sleep(60)"))
	if err := c.flush(); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(time.Second, cancel)
	start := time.Now()
	pgErr, err := c.drain()
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("the read ended %v after the interruption, at the statement's end", took)
	}
	if err == nil && pgErr == nil {
		t.Error("the interrupted statement ended without an error")
	}
}
