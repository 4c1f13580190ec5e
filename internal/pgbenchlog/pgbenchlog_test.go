package pgbenchlog_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/pgbenchlog"
	"github.com/pgoltp/pgoltp/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// runPgbench runs the real pgbench with args on a fresh database and
// returns its standard output and the directory of its logs (prefix "txn").
func runPgbench(t *testing.T, args ...string) (string, string) {
	t.Helper()
	bin := pgtest.Pgbench(t)
	dsn := pgtest.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, bin, "-i", "-q", "-s", "1", dsn).CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	dir := t.TempDir()
	args = append(args, "-l", "--log-prefix", filepath.Join(dir, "txn"), dsn)
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("pgbench %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.String(), dir
}

// scriptCounts reads "- N transactions" of each "SQL script" block.
var scriptCount = regexp.MustCompile(`(?m)^ - ([0-9]+) transactions`)

// The logs of two threads and two weighted scripts read back to exactly the
// count pgbench printed, to its per-script counts (which can miss a few) and
// to its tps within 0.5%.
func TestSummarizeMatchesPgbench(t *testing.T) {
	t.Parallel()
	stdout, dir := runPgbench(t, "-c", "4", "-j", "2", "-T", "4", "-b", "tpcb-like@2", "-b", "select-only@1")
	out := pgbenchlog.ParseOutput(bytes.NewBufferString(stdout))
	if len(out.Scripts) != 2 || out.Scripts[0] != "builtin: TPC-B (sort of)" || !out.HasTPS || out.Processed == 0 {
		t.Fatalf("parsed output %+v from:\n%s", out, stdout)
	}
	logs, err := pgbenchlog.Find(dir, "txn")
	if err != nil || len(logs) != 1 || len(logs[0].Files) != 2 {
		t.Fatalf("Find: %+v, %v; want one log of two threads", logs, err)
	}
	var seconds int
	sum, err := pgbenchlog.Summarize(logs[0], pgbenchlog.Options{Scripts: out.Scripts, OnSecond: func(*metrics.Snapshot) { seconds++ }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Committed != out.Processed {
		t.Errorf("the logs hold %d committed transactions, pgbench says %d", sum.Committed, out.Processed)
	}
	// pgbench's per-script counters are shared by its threads without a
	// lock (pgbench.c, processXactStats: "XXX could use a mutex here, but
	// we choose not to"), so with -j 2 they can miss a transaction that its
	// log and its per-thread total hold: the logs may count a few more.
	for i, m := range scriptCount.FindAllStringSubmatch(stdout, -1) {
		want, _ := strconv.ParseInt(m[1], 10, 64)
		if got := sum.Total.Count(i); got < want || got > want+max(3, want/1000) {
			t.Errorf("script %d: %d transactions in the logs, pgbench says %d", i+1, got, want)
		}
	}
	if d := math.Abs(sum.TPS()/out.TPS - 1); d > 0.005 {
		t.Errorf("tps from the logs %.2f, pgbench says %.2f (%.2f%% apart, want within 0.5%%)", sum.TPS(), out.TPS, 100*d)
	}
	var inSeries int64
	for _, p := range sum.Series.Points {
		for _, c := range p.Counts {
			inSeries += c
		}
	}
	if inSeries != sum.Committed || seconds != len(sum.Series.Points) || seconds < 4 {
		t.Errorf("the series holds %d transactions in %d points (%d seconds handed out), want %d in at least 4",
			inSeries, len(sum.Series.Points), seconds, sum.Committed)
	}
}

// With --rate and --max-tries the lines carry schedule_lag and retries.
func TestSummarizeLagAndRetries(t *testing.T) {
	t.Parallel()
	stdout, dir := runPgbench(t, "-c", "2", "-j", "1", "-t", "50", "-R", "500", "--max-tries", "3", "-b", "select-only")
	out := pgbenchlog.ParseOutput(bytes.NewBufferString(stdout))
	logs, err := pgbenchlog.Find(dir, "")
	if err != nil || len(logs) != 1 {
		t.Fatalf("Find: %+v, %v", logs, err)
	}
	sum, err := pgbenchlog.Summarize(logs[0], pgbenchlog.Options{Fields: pgbenchlog.Fields{Lag: true, Retries: true}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Committed != 100 || out.Processed != 100 || len(sum.Series.Kinds) != 1 || sum.Series.Kinds[0] != "script 1" {
		t.Errorf("committed %d (pgbench %d), kinds %v; want 100 and one script named by number", sum.Committed, out.Processed, sum.Series.Kinds)
	}
}

func TestAggregatedLogRefused(t *testing.T) {
	dir := t.TempDir()
	line := "1795726968 198 40912322 11687489408732 496 383879 0 0 0 0 0\n"
	if err := os.WriteFile(filepath.Join(dir, "pgbench_log.42"), []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	logs, err := pgbenchlog.Find(dir, "")
	if err != nil || len(logs) != 1 {
		t.Fatalf("Find: %+v, %v", logs, err)
	}
	_, err = pgbenchlog.Summarize(logs[0], pgbenchlog.Options{Scripts: []string{"a"}})
	if err == nil || !regexp.MustCompile(`aggregated lines.*per-transaction`).MatchString(err.Error()) {
		t.Errorf("got %v, want the aggregated log refused with what to do", err)
	}
}
