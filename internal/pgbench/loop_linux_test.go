//go:build linux

package pgbench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestLoopsKeepTheirThreads: with GOMAXPROCS at -j, as the command sets it
// (Env.NeedCPUs), each thread loop stays on one OS thread, as a pgbench
// thread does: the run's CPU is spent on -j threads. With a P to spare,
// every preemption of a loop (each 10 ms) woke an idle thread that took
// the loop over, so three threads shared two loops' work, with the futex
// wake-ups and extra context switches that cost (bench/RESULTS.md).
func TestLoopsKeepTheirThreads(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	var e bytes.Buffer
	if code := Main(context.Background(), []string{"-i", "-q", "-s", "1", dsn}, Env{Stdout: &e, Stderr: &e, Getenv: os.Getenv}); code != 0 {
		t.Fatalf("init: %s", e.String())
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	const jobs = 2
	before := threadsCPU(t)
	var out bytes.Buffer
	env := Env{Stdout: &out, Stderr: &out, Getenv: os.Getenv, NeedCPUs: func(n int) { runtime.GOMAXPROCS(n) }}
	args := []string{"-n", "-S", "-M", "prepared", "-c", "4", "-j", strconv.Itoa(jobs), "-t", "4000", dsn}
	if code := Main(context.Background(), args, env); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, out.String())
	}
	after := threadsCPU(t)
	var used []int64
	var total int64
	for tid, ns := range after {
		if d := ns - before[tid]; d > 0 {
			used, total = append(used, d), total+d
		}
	}
	slices.Sort(used)
	slices.Reverse(used)
	top := int64(0)
	for _, d := range used[:min(jobs, len(used))] {
		top += d
	}
	share := float64(top) / float64(total)
	t.Logf("CPU per thread (ms): %v; the %d busiest: %.0f%%", msOf(used), jobs, 100*share)
	if share < 0.8 {
		t.Errorf("the %d busiest threads ran %.0f%% of the run's CPU, want 80%% or more: the loops moved between threads", jobs, 100*share)
	}
}

// TestRawLoopNoticesInterrupt: a loop that keeps its P and whose clients
// all wait for the server polls without a timeout, as pgbench does
// (pgwire.PollUntilReady); an interruption during a 30 s statement must
// still end the run at once (the runtime's preemption interrupts the
// poll), not when the statement ends.
func TestRawLoopNoticesInterrupt(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	f := writeScript(t, "long.sql", "SELECT pg_sleep(30);\n")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var out bytes.Buffer
	env := Env{Stdout: &out, Stderr: &out, Getenv: os.Getenv, NeedCPUs: func(n int) { runtime.GOMAXPROCS(n) }}
	t0 := time.Now()
	code := Main(ctx, []string{"-n", "-c", "2", "-j", "2", "-T", "60", "-f", f, dsn}, env)
	if took := time.Since(t0); code != 130 || took > 15*time.Second {
		t.Errorf("exit %d after %v (interrupted after 1 s, the statement takes 30 s): %s", code, took, out.String())
	}
}

// threadsCPU is the CPU time (ns) each of the process's threads has run.
func threadsCPU(t *testing.T) map[string]int64 {
	tasks, err := filepath.Glob("/proc/self/task/*/schedstat")
	if err != nil {
		t.Fatal(err)
	}
	cpu := map[string]int64{}
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended
		}
		ns, err := strconv.ParseInt(strings.Fields(string(b))[0], 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		cpu[filepath.Base(filepath.Dir(f))] = ns
	}
	return cpu
}

func msOf(ns []int64) []int64 {
	ms := make([]int64, len(ns))
	for i, n := range ns {
		ms[i] = n / 1e6
	}
	return ms
}
