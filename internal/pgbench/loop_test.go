package pgbench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestTransactionsAllocateNothing: the run engine speaks to the server
// itself (wire.go), in its thread loops (loop.go), so a transaction of the
// built-in select-only script in each query mode allocates (almost)
// nothing; through pgconn, with a goroutine per client, each cost 3-10
// allocations, a share of the 1.2-1.6x pgbench's CPU per transaction in
// bench/RESULTS.md. Counted as the difference between two runs, so that
// connecting and the summary cancel out.
func TestTransactionsAllocateNothing(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	var e bytes.Buffer
	if code := Main(context.Background(), []string{"-i", "-q", "-s", "1", dsn}, Env{Stdout: &e, Stderr: &e, Getenv: os.Getenv}); code != 0 {
		t.Fatalf("init: %s", e.String())
	}
	for _, mode := range QueryModes {
		mallocs := func(perClient int) uint64 {
			var out bytes.Buffer
			args := []string{"-n", "-S", "-M", mode, "-c", "2", "-j", "1", "-t", strconv.Itoa(perClient), dsn}
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
		t.Logf("-M %s: %d allocations for %d transactions, %d for %d: %.3f per transaction", mode, small, 2*few, large, 2*many, perTx)
		if perTx > 0.5 {
			t.Errorf("-M %s: %.2f allocations per transaction, want under 0.5", mode, perTx)
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
