package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/store"
)

// loadStored reads a stored run of lab.
func loadStored(t *testing.T, lab, id string) *store.Run {
	t.Helper()
	st, err := store.Open(context.Background(), lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	run, err := st.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

var pgbenchProcessed = regexp.MustCompile(`number of transactions actually processed: ([0-9]+)`)

var pgbenchScriptCount = regexp.MustCompile(`(?m)^SQL script [0-9]+: <(.*)>\n - weight: .*\n - ([0-9]+) transactions`)

// 'pgoltp record -- pgbench ...' runs the real pgbench unchanged (its
// summary on the terminal) and stores it: per-script histograms holding
// exactly pgbench's per-script counts, its tps and the logs' within 0.5%,
// the collectors' samples, and no password and no log file left behind.
func TestRecordPgbench(t *testing.T) {
	t.Parallel()
	bin := pgtest.Pgbench(t)
	dsn := pgtest.NewDatabase(t)
	lab := labDir(t)
	if r := runPgoltp(t, 2*time.Minute, "--lab", lab, "record", "--", bin, "-i", "-s", "1", "-q", dsn); r.code != 0 {
		t.Fatalf("record -- pgbench -i: exit %d: %s", r.code, r.stderr)
	}
	r := runPgoltp(t, 2*time.Minute, "--lab", lab, "--json", "record", "--title", "two scripts", "--",
		bin, "-c", "2", "-j", "2", "-T", "3", "-b", "tpcb-like@3", "-b", "select-only", dsn)
	if r.code != 0 {
		t.Fatalf("record: exit %d: %s", r.code, r.stderr)
	}
	var out struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.RunID == "" {
		t.Fatalf("--json: %v: %q", err, r.stdout)
	}
	counts := pgbenchScriptCount.FindAllStringSubmatch(r.stderr, -1)
	if len(counts) != 2 {
		t.Fatalf("pgbench's summary (on stderr with --json) has %d script blocks:\n%s", len(counts), r.stderr)
	}
	run := loadStored(t, lab, out.RunID)
	if run.Workload != "pgbench" || run.Title != "two scripts" || run.Status != store.Complete {
		t.Errorf("stored %s %q %s, want pgbench \"two scripts\" complete", run.Workload, run.Title, run.Status)
	}
	// pgbench's per-script counts are summed by its -j threads without a
	// lock ("XXX could use a mutex here, but we choose not to", pgbench.c,
	// processXactStats), so under load they can lose an increment; its total
	// is summed per thread and exact. The logs hold every transaction: the
	// stored histograms add up to the total exactly, and to at least each
	// script's count.
	var stored int64
	for _, c := range counts {
		want, _ := strconv.ParseInt(c[2], 10, 64)
		h := run.Latency[c[1]]
		if h == nil || histCount(h.Counts) < want {
			t.Errorf("script %q: stored histogram %v, pgbench counted %d", c[1], h != nil, want)
			continue
		}
		stored += histCount(h.Counts)
	}
	total := pgbenchProcessed.FindStringSubmatch(r.stderr)
	if total == nil {
		t.Fatalf("pgbench's summary has no total:\n%s", r.stderr)
	}
	if want, _ := strconv.ParseInt(total[1], 10, 64); stored != want {
		t.Errorf("stored histograms hold %d transactions, pgbench processed %d", stored, want)
	}
	var tps, logTPS float64
	for _, f := range run.Headline {
		switch f.Name {
		case "TPS":
			tps = f.Value
		case "TPS (logs)":
			logTPS = f.Value
		}
	}
	if tps == 0 || logTPS/tps < 0.995 || logTPS/tps > 1.005 {
		t.Errorf("tps %.1f (pgbench) and %.1f (logs): want both, within 0.5%%", tps, logTPS)
	}
	if run.Samples == nil || len(run.Samples.Points) == 0 || len(run.Series) == 0 {
		t.Errorf("no collectors' samples or no series stored")
	}
	cfg, _ := pgx.ParseConfig(dsn)
	for _, p := range run.Params {
		if cfg.Password != "" && strings.Contains(p.Value, cfg.Password) {
			t.Errorf("parameter %s holds the password", p.Name)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(os.TempDir(), "pgoltp-record-*", "pgbench_log*")); len(left) > 0 {
		t.Errorf("pgbench logs left behind: %v", left)
	}
}

func histCount(counts []int64) int64 {
	var n int64
	for _, c := range counts {
		n += c
	}
	return n
}

// A command that is not pgbench is stored with its output; its exit code is
// pgoltp's, and the run is stored as failed.
func TestRecordAnyCommand(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	lab := labDir(t)
	r := runPgoltp(t, time.Minute, "--lab", lab, "--dsn", dsn, "record", "--", "sh", "-c", "echo sysbench-like output; exit 3")
	if r.code != 3 || !strings.Contains(r.stdout, "sysbench-like output") {
		t.Fatalf("exit %d, stdout %q; want 3 and the command's own output", r.code, r.stdout)
	}
	st, err := store.Open(context.Background(), lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	run, err := st.Find(context.Background(), "last")
	if err != nil {
		t.Fatal(err)
	}
	if run.Workload != "command" || run.Status != store.Failed || !strings.Contains(strings.Join(run.Notes, "\n"), "sysbench-like output") {
		t.Errorf("stored %s %s notes %q; want a failed command run with its output", run.Workload, run.Status, run.Notes)
	}
}

func TestRecordBadInput(t *testing.T) {
	t.Parallel()
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "record", "--", "no-such-benchmark-tool"), "no-such-benchmark-tool")
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "record", "pgbench"), "--")
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "import", "pgbench-log", t.TempDir()), "no pgbench log")
}

// Logs made elsewhere are stored on their own time axis with the counts
// pgbench printed; a directory with an unreadable log stores nothing.
func TestImportPgbenchLog(t *testing.T) {
	t.Parallel()
	bin := pgtest.Pgbench(t)
	dsn := pgtest.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, bin, "-i", "-q", "-s", "1", dsn).CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	dir := t.TempDir()
	before := time.Now()
	stdout, err := exec.CommandContext(ctx, bin, "-c", "2", "-j", "2", "-T", "2", "-S", "-l", "--log-prefix", filepath.Join(dir, "run1"), dsn).Output()
	if err != nil {
		t.Fatal(err)
	}
	outFile := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(outFile, stdout, 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // the import must not be placed at its own time
	lab := labDir(t)
	logs, _ := filepath.Glob(filepath.Join(dir, "run1.[0-9]*"))
	first := ""
	for _, l := range logs {
		if strings.Count(filepath.Base(l), ".") == 1 {
			first = l
		}
	}
	r := runPgoltp(t, time.Minute, "--lab", lab, "--json", "import", "pgbench-log", "--output", outFile, first)
	var res struct{ Runs []string }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil || len(res.Runs) != 1 {
		t.Fatalf("import: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	run := loadStored(t, lab, res.Runs[0])
	processed := regexp.MustCompile(`actually processed: ([0-9]+)`).FindStringSubmatch(string(stdout))
	want, _ := strconv.ParseInt(processed[1], 10, 64)
	if h := run.Latency["transaction"]; h == nil || histCount(h.Counts) != want {
		t.Errorf("imported histogram of its one script (\"transaction\", as tpcb run names it): %v, pgbench processed %d", run.Latency, want)
	}
	if run.StartedAt.Before(before.Add(-time.Second)) || run.StartedAt.After(before.Add(time.Second)) {
		t.Errorf("the imported run starts at %s, pgbench started at %s", run.StartedAt, before)
	}
	// An aggregated log beside it: nothing of the directory is stored.
	if err := os.WriteFile(filepath.Join(dir, "agg.77"), []byte("1795726968 198 40912322 11687489408732 496 383879 0 0 0 0 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lab2 := labDir(t)
	r = runPgoltp(t, time.Minute, "--lab", lab2, "import", "pgbench-log", dir)
	assertOneLineProblem(t, r, "aggregated")
	if _, err := os.Stat(filepath.Join(lab2, "results.db")); err == nil {
		if st, err := store.Open(context.Background(), lab2, ""); err == nil {
			if _, err := st.Find(context.Background(), "last"); err == nil {
				t.Errorf("a run was stored from a directory with an unreadable log")
			}
			st.Close()
		}
	}
}

// 'pgoltp pgbench --record' stores pgoltp's own pgbench run as 'record'
// stores the real one's; pgbench's output is unchanged.
func TestPgbenchRecord(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	lab := labDir(t)
	if r := runPgoltp(t, 2*time.Minute, "pgbench", "-i", "-s", "1", "-q", dsn); r.code != 0 {
		t.Fatalf("pgbench -i: exit %d: %s", r.code, r.stderr)
	}
	r := runPgoltp(t, 2*time.Minute, "--lab", lab, "pgbench", "--record", "--title", "own engine", "-S", "-c", "2", "-t", "50", dsn)
	if r.code != 0 || !strings.Contains(r.stdout, "number of transactions actually processed: 100/100") {
		t.Fatalf("pgbench --record: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	st, err := store.Open(context.Background(), lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	run, err := st.Find(context.Background(), "last")
	if err != nil {
		t.Fatal(err)
	}
	if h := run.Latency["transaction"]; run.Title != "own engine" || h == nil || histCount(h.Counts) != 100 {
		t.Errorf("stored %q with histograms %v, want \"own engine\" and 100 transactions", run.Title, run.Latency)
	}
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "pgbench", "--title", "x", "-S", dsn), "--record")
}
