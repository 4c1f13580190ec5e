package e2e_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// pgbenchBinary finds pgbench: next to the test cluster's server binaries,
// on PATH, or next to an installed server. The compatibility tests need the
// real one.
func pgbenchBinary(t *testing.T) string { return pgtest.Pgbench(t) }

// runPgbench runs pgbench against dsn and returns its combined output.
func runPgbench(t *testing.T, dsn string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, pgbenchBinary(t), append(args, dsn)...).CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// tpcbRunJSON is the part of `tpcb run --json` the tests read.
type tpcbRunJSON struct {
	Committed  int64 `json:"committed"`
	Failed     int64 `json:"failed"`
	Retries    int64 `json:"retries"`
	EventLoop  bool  `json:"event_loop"`
	Scale      int   `json:"scale"`
	Statements []struct {
		Text    string `json:"text"`
		Latency struct {
			Count int64 `json:"count"`
			P99   int64 `json:"p99_ns"`
		} `json:"latency"`
	} `json:"statements"`
	Series struct {
		Points []struct {
			Counts []int64 `json:"counts"`
		} `json:"points"`
	} `json:"series"`
	Check *struct {
		OK bool `json:"ok"`
	} `json:"check"`
}

func tpcbRun(t *testing.T, dsn string, args ...string) tpcbRunJSON {
	t.Helper()
	r := runPgoltp(t, 5*time.Minute, append([]string{"--dsn", dsn, "--json", "tpcb", "run"}, args...)...)
	if r.code != 0 {
		t.Fatalf("tpcb run %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
	}
	var res tpcbRunJSON
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("tpcb run --json: %v: %.500s", err, r.stdout)
	}
	if res.Check == nil || !res.Check.OK {
		t.Fatalf("tpcb run %s: check did not pass: %+v", strings.Join(args, " "), res.Check)
	}
	return res
}

// A database initialised by pgbench runs under pgoltp with every script and
// protocol, and the check holds afterwards.
func TestTpcbRunsOnPgbenchInitialisedDatabase(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	runPgbench(t, dsn, "-i", "-q", "-s", "2")
	var history int64
	cases := []struct {
		args  []string
		stmts int
		rows  bool
	}{ // at repeatable read some transactions may fail even after 3 tries: allowed
		{[]string{"-c", "4", "-j", "2", "-t", "50", "-M", "prepared"}, 7, true},
		{[]string{"-c", "3", "-t", "20", "-M", "extended", "-N"}, 5, true},
		{[]string{"-c", "2", "-t", "20", "--protocol", "simple", "--select-only"}, 1, false},
		{[]string{"-c", "2", "-j", "2", "-T", "2", "-P", "1", "-b", "tpcb-like"}, 7, true},
		{[]string{"-c", "2", "-T", "1500ms", "-R", "200", "-L", "100", "--max-tries", "3", "--isolation", "repeatable-read"}, 7, true},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			res := tpcbRun(t, dsn, tc.args...)
			if res.Scale != 2 || !res.EventLoop {
				t.Errorf("scale %d event loop %v, want 2, true", res.Scale, res.EventLoop)
			}
			if len(res.Statements) != tc.stmts {
				t.Errorf("%d statements, want %d", len(res.Statements), tc.stmts)
			}
			mayFail := strings.Contains(strings.Join(tc.args, " "), "repeatable-read")
			if res.Committed == 0 || (res.Failed != 0 && !mayFail) {
				t.Errorf("committed %d failed %d", res.Committed, res.Failed)
			}
			var sum int64
			for _, p := range res.Series.Points {
				sum += p.Counts[0]
			}
			if sum != res.Committed {
				t.Errorf("per-second series sums to %d, committed %d", sum, res.Committed)
			}
			if tc.rows {
				history += res.Committed
			}
		})
	}
	// -N ran, so tellers are not compared with history; nothing was lost.
	r := runPgoltp(t, time.Minute, "--dsn", dsn, "tpcb", "check", "-N", "--expect-history", strconv.FormatInt(history, 10))
	if r.code != 0 {
		t.Fatalf("tpcb check: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
}

// A database loaded by pgoltp is what pgbench -i makes (same columns, types,
// fillfactor, keys, partitions) and runs under pgbench; the check holds after.
func TestTpcbLoadRunsUnderPgbench(t *testing.T) {
	t.Parallel()
	ours, theirs := pgtest.NewDatabase(t), pgtest.NewDatabase(t)
	for _, args := range [][]string{
		{"-s", "2", "-F", "90"},
		{"-s", "2", "--partitions", "3", "--partition-method", "range"},
		{"-s", "1", "--partitions", "4", "--partition-method", "hash", "--foreign-keys"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := runPgoltp(t, 5*time.Minute, append([]string{"--dsn", ours, "tpcb", "load"}, args...)...)
			if r.code != 0 {
				t.Fatalf("tpcb load: exit %d: %s", r.code, r.stderr)
			}
			pgArgs := append([]string{"-i", "-q"}, args...)
			if args[len(args)-1] == "--foreign-keys" {
				pgArgs = append(pgArgs[:len(pgArgs)-1], "-I", "dtgvpf")
			}
			runPgbench(t, theirs, pgArgs...)
			if a, b := catalog(t, ours), catalog(t, theirs); a != b {
				t.Errorf("catalog differs from pgbench -i:\npgoltp:\n%s\npgbench:\n%s", a, b)
			}
			out := runPgbench(t, ours, "-n", "-M", "prepared", "-c", "4", "-j", "2", "-t", "50")
			if !strings.Contains(out, "number of transactions actually processed: 200/200") {
				t.Fatalf("pgbench on a pgoltp-loaded database:\n%s", out)
			}
			// pgbench -n keeps pgbench_history, so the whole-database check holds.
			r = runPgoltp(t, time.Minute, "--dsn", ours, "tpcb", "check", "--expect-history", "200")
			if r.code != 0 {
				t.Fatalf("tpcb check after pgbench: exit %d: %s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// catalog describes the pgbench tables as a comparable text: columns with
// types and nullability, reloptions, constraints, partition bounds, row counts.
func catalog(t *testing.T, dsn string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	queries := []string{
		`select c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull
		   from pg_attribute a join pg_class c on c.oid = a.attrelid
		  where c.relname like 'pgbench%' and c.relkind in ('r', 'p') and a.attnum > 0 order by 1, 2`,
		`select relname, relkind, coalesce(array_to_string(reloptions, ','), ''), relpersistence,
		        coalesce(pg_get_expr(relpartbound, oid), '')
		   from pg_class where relname like 'pgbench%' order by 1`,
		`select conrelid::regclass::text, contype, pg_get_constraintdef(oid)
		   from pg_constraint where conrelid::regclass::text like 'pgbench%' order by 1, 3`,
		`select (select count(*) from pgbench_accounts), (select count(*) from pgbench_tellers),
		        (select count(*) from pgbench_branches), (select count(*) from pgbench_history),
		        (select sum(abalance) from pgbench_accounts), (select count(*) from pgbench_accounts where bid <> (aid - 1) / 100000 + 1)`,
	}
	var b strings.Builder
	for _, q := range queries {
		rows, err := conn.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				b.WriteString(strings.TrimSpace(strings.ReplaceAll(toString(v), "\n", " ")) + " | ")
			}
			b.WriteString("\n")
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
	}
	return b.String()
}

func toString(v any) string {
	if v == nil {
		return "NULL"
	}
	j, _ := json.Marshal(v)
	return string(j)
}

func TestTpcbCheckFailsOnCorruptBalance(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	if r := runPgoltp(t, 5*time.Minute, "--dsn", dsn, "tpcb", "load", "-s", "1"); r.code != 0 {
		t.Fatalf("load: %s", r.stderr)
	}
	res := tpcbRun(t, dsn, "-c", "2", "-t", "20")
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "update pgbench_branches set bbalance = bbalance + 42 where bid = 1"); err != nil {
		t.Fatal(err)
	}
	r := runPgoltp(t, time.Minute, "--dsn", dsn, "tpcb", "check", "--expect-history", strconv.FormatInt(res.Committed, 10))
	if r.code != 1 || !strings.Contains(r.stderr, "tellers = branches") {
		t.Fatalf("check of a corrupted balance: exit %d, stderr %q, stdout %q", r.code, r.stderr, r.stdout)
	}
	// The run's own check sees the corruption too only as a delta, so a
	// run after it still passes: it checks what the run changed.
	tpcbRun(t, dsn, "-c", "2", "-t", "10")
}

func TestTpcbBadInput(t *testing.T) {
	t.Parallel()
	dsn := "postgres://nobody@127.0.0.1:1/none" // never reached: input is checked first
	cases := []struct {
		name     string
		args     []string
		mentions []string
	}{
		{"scale 0", []string{"tpcb", "load", "--scale", "0"}, []string{"scale"}},
		{"scale beyond the tellers' int4", []string{"tpcb", "load", "--scale", "2147483647"}, []string{"scale", "2147483647"}},
		{"fillfactor 5", []string{"tpcb", "load", "-F", "5"}, []string{"fillfactor"}},
		{"partition method", []string{"tpcb", "load", "--partitions", "2", "--partition-method", "list"}, []string{"list"}},
		{"bad protocol", []string{"tpcb", "run", "--protocol", "carrier-pigeon"}, []string{"protocol", "carrier-pigeon"}},
		{"bad script", []string{"tpcb", "run", "-b", "tpcc"}, []string{"tpcc"}},
		{"-N and -S", []string{"tpcb", "run", "-N", "-S"}, []string{"--select-only"}},
		{"bad duration", []string{"tpcb", "run", "-T", "forever"}, []string{"--duration"}},
		{"-t and -T", []string{"tpcb", "run", "-t", "5", "-T", "5"}, []string{"duration"}},
		{"jobs above clients", []string{"tpcb", "run", "-c", "2", "-j", "4"}, []string{"jobs"}},
		{"bad isolation", []string{"tpcb", "run", "--isolation", "chaos"}, []string{"chaos"}},
		{"unlimited tries unbounded", []string{"tpcb", "run", "--max-tries", "0"}, []string{"tries"}},
		// -T accepts Go durations: 24h parses, and the clash with -t is what is reported.
		{"-T 24h with -t", []string{"tpcb", "run", "-T", "24h", "-t", "5"}, []string{"either a number of transactions or a duration"}},
		{"negative stop-at-txns", []string{"tpcb", "run", "--stop-at-txns", "-1"}, []string{"--stop-at-txns"}},
		{"stop-at-txns with -t", []string{"tpcb", "run", "--stop-at-txns", "100", "-t", "5"}, []string{"--stop-at-txns"}},
		{"negative bloat-every", []string{"tpcb", "run", "-T", "2h", "--bloat-every", "-1m"}, []string{"--bloat-every"}},
		{"tpcc negative stop-at-txns", []string{"tpcc", "run", "--stop-at-txns", "-1"}, []string{"--stop-at-txns"}},
		{"bad expect-history", []string{"tpcb", "check", "--expect-history", "-5"}, []string{"expect-history"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assertOneLineProblem(t, runPgoltp(t, time.Minute, append([]string{"--dsn", dsn}, tc.args...)...), tc.mentions...)
		})
	}
}

func TestTpcbRunNotLoaded(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "--dsn", dsn, "tpcb", "run"), "tpcb load")
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "--dsn", dsn, "tpcb", "check"), "tpcb load")
}

// The text summary is pgbench's, line for line where pgbench has the line.
func TestTpcbSummaryLooksLikePgbench(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	if r := runPgoltp(t, 5*time.Minute, "--dsn", dsn, "tpcb", "load"); r.code != 0 {
		t.Fatalf("load: %s", r.stderr)
	}
	r := runPgoltp(t, time.Minute, "--dsn", dsn, "tpcb", "run", "-c", "2", "-t", "10", "-M", "prepared", "--max-tries", "3", "-L", "50")
	if r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"transaction type: <builtin: TPC-B (sort of)>", "scaling factor: 1", "query mode: prepared",
		"number of clients: 2", "number of threads: 1", "maximum number of tries: 3",
		"number of transactions per client: 10", "number of transactions actually processed: 20/20",
		"number of failed transactions: 0 (0.000%)", "number of transactions retried: ", "total number of retries: ",
		"number of transactions above the 50.0 ms latency limit: ", "latency average = ", "latency stddev = ",
		"initial connection time = ", "tps = ", "latency percentiles: p50 ",
		"statement latencies in milliseconds, failures and retries",
		"UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;", "check: ok",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.stdout)
		}
	}
}

// --record stores the run (with the collectors around it) for 'pgoltp report'.
func TestTpcbRunRecorded(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	lab := labDir(t)
	if r := runPgoltp(t, 5*time.Minute, "--dsn", dsn, "tpcb", "load"); r.code != 0 {
		t.Fatalf("load: %s", r.stderr)
	}
	r := runPgoltp(t, 2*time.Minute, "--lab", lab, "--dsn", dsn, "tpcb", "run", "-c", "2", "-t", "20", "--record")
	if r.code != 0 || !strings.Contains(r.stderr, "stored (complete)") {
		t.Fatalf("run --record: exit %d: %s", r.code, r.stderr)
	}
	r = runPgoltp(t, time.Minute, "--lab", lab, "runs")
	if r.code != 0 || !strings.Contains(r.stdout, "tpcb") || !strings.Contains(r.stdout, "complete") {
		t.Fatalf("runs: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
}
