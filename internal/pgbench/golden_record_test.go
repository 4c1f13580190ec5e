package pgbench

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// goldenRuns are the real pgbench runs whose output testdata/golden holds:
// name and command line (LOGDIR stands for the log directory).
var goldenRuns = []struct{ name, args string }{
	{"simple", "-c 2 -t 20"},
	{"select-prepared-progress", "-S -M prepared -c 3 -j 2 -T 2 -P 1"},
	{"scripts-per-command", "-b tpcb-like@2 -b select-only@1 -r -c 2 -t 30 --max-tries=3 --failures-detailed"},
	{"rate-limit", "-S -R 300 -L 10 -T 2 -c 2 -r"},
	{"connect", "-C -N -c 2 -t 10"},
	{"log", "-S -c 2 -t 20 -R 500 --max-tries=2 -l --log-prefix=LOGDIR/tx"},
	{"aggregate", "-S -c 2 -T 3 -R 300 -L 50 --max-tries=2 --failures-detailed -l --aggregate-interval=1 --log-prefix=LOGDIR/agg"},
	{"progress-timestamp", "-S -c 2 -T 2 -P 1 --progress-timestamp -R 200 -L 20 --max-tries=2"},
	{"partitions", "-S -c 1 -t 5"},
	// Serialization failures, retried and not: failure counts by kind,
	// retries, per-statement failures and retries, and the latency average
	// "including failures".
	{"conflicts-retried", "-n -c 4 -T 2 --max-tries=2 --failures-detailed -r -f testdata/golden/conflicts.sql@3 -b select-only@1"},
	{"conflicts", "-n -c 4 -t 40 -f testdata/golden/conflicts.sql"},
	{"conflicts-log", "-n -c 4 -t 20 --max-tries=2 --failures-detailed -l --log-prefix=LOGDIR/c -f testdata/golden/conflicts.sql"},
	{"conflicts-aggregate", "-n -c 4 -T 2 --max-tries=2 --failures-detailed -l --aggregate-interval=1 --log-prefix=LOGDIR/a -f testdata/golden/conflicts.sql"},
}

// TestRecordGolden records the golden files from the real pgbench when
// PGBENCH_RECORD_GOLDEN is set (to 1, or to the names of the runs to
// record): stdout, stderr and logs of each run.
func TestRecordGolden(t *testing.T) {
	if os.Getenv("PGBENCH_RECORD_GOLDEN") == "" {
		t.Skip("set PGBENCH_RECORD_GOLDEN=1 to record testdata/golden from the real pgbench")
	}
	bin := pgtest.Pgbench(t)
	dir := filepath.Join("testdata", "golden")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	only := os.Getenv("PGBENCH_RECORD_GOLDEN") // "1": all; else names, comma-separated
	for _, g := range goldenRuns {
		if only != "1" && !slices.Contains(strings.Split(only, ","), g.name) {
			continue
		}
		dsn := pgtest.NewDatabase(t)
		initArgs := []string{"-i", "-q", dsn}
		if g.name == "partitions" {
			initArgs = []string{"-i", "-q", "--partitions=3", "--partition-method=hash", dsn}
		}
		if out, err := exec.Command(bin, initArgs...).CombinedOutput(); err != nil {
			t.Fatalf("pgbench -i: %v: %s", err, out)
		}
		logs := t.TempDir()
		args := append(strings.Fields(strings.ReplaceAll(g.args, "LOGDIR", logs)), dsn)
		cmd := exec.Command(bin, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("pgbench %s: %v: %s", g.args, err, stderr.String())
		}
		write(t, filepath.Join(dir, g.name+".args"), g.args+"\n")
		write(t, filepath.Join(dir, g.name+".out"), stdout.String())
		write(t, filepath.Join(dir, g.name+".err"), stderr.String())
		files, _ := filepath.Glob(filepath.Join(logs, "*"))
		var all []byte
		for _, f := range files {
			b, _ := os.ReadFile(f)
			all = append(all, b...)
		}
		if len(files) > 0 {
			write(t, filepath.Join(dir, g.name+".log"), string(all))
		}
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
