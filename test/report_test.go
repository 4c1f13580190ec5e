package e2e_test

import (
	"context"
	"encoding/csv"
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

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/pgtest/browser"
	"github.com/pgoltp/pgoltp/internal/pgtest/pgbench"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/report"
	"github.com/pgoltp/pgoltp/internal/store"
)

// TestRunsReportCompare records real pgbench runs into a lab the way the run
// commands do (recorder.Begin ... Finish), leaves one run
// half-done as a crash would, and then uses `pgoltp runs`, `pgoltp report`
// (HTML opened in headless Chromium, JSON, CSV) and `pgoltp compare`.
func TestRunsReportCompare(t *testing.T) {
	t.Parallel()
	chromium, err := browser.Find()
	if err != nil {
		t.Fatal(err)
	}
	lab := labDir(t)
	dsn := pgtest.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// Run A: recorded with collectors through the adapter the run commands use.
	runA := &store.Run{Workload: "pgbench", Title: "baseline, 2 clients"}
	rec, err := recorder.Begin(ctx, lab, "", dsn, runA, collect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := pgbench.Run(ctx, dsn, pgbench.Options{Seconds: 4, Clients: 2, Start: runA.StartedAt})
	if err != nil {
		t.Fatal(err)
	}
	runA.Params, runA.Headline, runA.Latency, runA.Series, runA.EndedAt = res.Params, res.Headline, res.Latency, res.Series, res.EndedAt
	idA, err := rec.Finish(ctx, store.Complete)
	if err != nil {
		t.Fatal(err)
	}

	// Run B: synchronous_commit=off and more clients, recorded in one go.
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	var db string
	_ = conn.QueryRow(ctx, "SELECT current_database()").Scan(&db)
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{db}.Sanitize()+" SET synchronous_commit = off"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	runB, err := pgbench.Run(ctx, dsn, pgbench.Options{Seconds: 4, Clients: 4, NoInit: true, Collector: true, Title: "async commit, 4 clients"})
	if err != nil {
		t.Fatal(err)
	}
	idB, err := storeWhole(ctx, lab, "", runB)
	if err != nil {
		t.Fatal(err)
	}

	// Run C: begun by a process that died before finishing.
	dead := exec.Command("true")
	_ = dead.Run()
	host, _ := os.Hostname()
	st, err := store.Open(ctx, lab, "")
	if err != nil {
		t.Fatal(err)
	}
	runC := &store.Run{Workload: "tpcc", Title: "crashed", Owner: host + ":" + strconv.Itoa(dead.Process.Pid), StartedAt: time.Now()}
	idC, err := st.Begin(ctx, runC)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}

	t.Run("runs", func(t *testing.T) {
		r := runPgoltp(t, time.Minute, "runs", "--lab", lab)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		for _, want := range []*regexp.Regexp{
			regexp.MustCompile(idA + `\s+\S+ \S+\s+pgbench\s+complete\s+\S+\s+TPS \d`),
			regexp.MustCompile(idB + `\s+\S+ \S+\s+pgbench\s+complete`),
			regexp.MustCompile(idC + `\s+\S+ \S+\s+tpcc\s+incomplete`),
		} {
			if !want.MatchString(r.stdout) {
				t.Errorf("runs output does not match %s:\n%s", want, r.stdout)
			}
		}
		r = runPgoltp(t, time.Minute, "runs", "--lab", lab, "--format", "csv")
		rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
		if err != nil || len(rows) != 4 || rows[0][0] != "id" || !strings.Contains(strings.Join(rows[0], ","), "TPS (txn/s)") {
			t.Errorf("runs --format csv: %v: %q", err, r.stdout)
		}
		r = runPgoltp(t, time.Minute, "runs", "--lab", lab, "--json")
		var list []store.Summary
		if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 3 || list[0].ID != idC {
			t.Errorf("runs --json: %v, %d runs: %s", err, len(list), r.stdout)
		}
	})

	t.Run("report html", func(t *testing.T) {
		r := runPgoltp(t, time.Minute, "report", idA[:17], "--lab", lab)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		file := filepath.Join(lab, "reports", idA+".html")
		if !strings.Contains(r.stdout, file) {
			t.Errorf("report should say where it wrote: %q", r.stdout)
		}
		assertPrivate(t, file)
		assertPrivate(t, filepath.Join(lab, "results.db"))
		page, err := browser.Load(ctx, chromium, file)
		if err != nil {
			t.Fatal(err)
		}
		tag := regexp.MustCompile(`<html[^>]*>`).FindString(page.DOM)
		if !strings.Contains(tag, `data-report-ready="ok"`) || strings.Contains(tag, "data-report-errors") {
			t.Errorf("report script did not run cleanly: %s", tag)
		}
		for _, want := range []string{`id="chart-throughput"`, `id="chart-latency"`, `aria-label="CPU (% of all cores)"`, `id="statements-table"`, `>baseline, 2 clients<`} {
			if !strings.Contains(page.DOM, want) {
				t.Errorf("report lacks %s", want)
			}
		}
		if errs := browser.ConsoleErrors(page.Console); len(errs) > 0 {
			t.Errorf("console errors: %v", errs)
		}
		png := filepath.Join(t.TempDir(), "report.png")
		if err := browser.Screenshot(ctx, chromium, file, png, 1280, 2400); err != nil {
			t.Error(err)
		}
	})

	t.Run("report json and csv", func(t *testing.T) {
		r := runPgoltp(t, time.Minute, "report", idB, "--lab", lab, "--format", "json")
		var e report.Export
		if err := json.Unmarshal([]byte(r.stdout), &e); err != nil {
			t.Fatalf("report --format json: %v (exit %d, %s)", err, r.code, r.stderr)
		}
		if e.ID != idB || len(e.Latency) != 2 || len(e.Series) == 0 || e.Collected == nil || len(e.Collected.Points) == 0 || len(e.Headline) == 0 {
			t.Errorf("JSON export is missing parts: id %s, %d latency rows, %d intervals", e.ID, len(e.Latency), len(e.Series))
		}
		out := filepath.Join(t.TempDir(), "run.csv")
		r = runPgoltp(t, time.Minute, "report", idB, "--lab", lab, "-o", out)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		assertPrivate(t, out)
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		sources := map[string]int{}
		for _, row := range rows[1:] {
			sources[row[0]+" "+row[2]]++
		}
		if strings.Join(rows[0], ",") != "source,t,metric,key,value" || sources["driver txn_per_s"] == 0 || sources["collector os.cpu.user_pct"] == 0 {
			t.Errorf("CSV export: header %v, counts %v", rows[0], sources)
		}
	})

	t.Run("compare", func(t *testing.T) {
		r := runPgoltp(t, time.Minute, "compare", idA, idB, "--lab", lab)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		for _, want := range []string{"(baseline)", "TPS", "tpcb-like p99", "Parameters that differ", "clients", "Settings that differ",
			"synchronous_commit", "[UNSAFE: can-lose-data-on-crash]"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("compare output lacks %q:\n%s", want, r.stdout)
			}
		}
		if !regexp.MustCompile(`TPS\s+[\d,.]+ txn/s\s+[\d,.]+ txn/s \([+-]\d+\.\d%\)`).MatchString(r.stdout) {
			t.Errorf("compare shows no change for TPS:\n%s", r.stdout)
		}
		file := filepath.Join(t.TempDir(), "compare.html")
		r = runPgoltp(t, time.Minute, "compare", "last~2", "last~1", "--lab", lab, "-o", file)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		page, err := browser.Load(ctx, chromium, file)
		if err != nil {
			t.Fatal(err)
		}
		tag := regexp.MustCompile(`<html[^>]*>`).FindString(page.DOM)
		if !strings.Contains(tag, `data-report-ready="ok"`) || !strings.Contains(tag, `data-charts-rendered="1"`) {
			t.Errorf("comparison page script did not run cleanly: %s", tag)
		}
		for _, want := range []string{`id="figures-table"`, `id="settings-diff"`, `risk-can-lose-data-on-crash`, `id="chart-compare-throughput"`} {
			if !strings.Contains(page.DOM, want) {
				t.Errorf("comparison page lacks %s", want)
			}
		}
		if os.Getenv("PGOLTP_REPORT_SCREENSHOT") != "" {
			_ = browser.Screenshot(ctx, chromium, file, strings.TrimSuffix(os.Getenv("PGOLTP_REPORT_SCREENSHOT"), ".png")+"-compare.png", 1280, 1800)
		}
		r = runPgoltp(t, time.Minute, "compare", idA, idB, "--lab", lab, "--json")
		var c report.Comparison
		if err := json.Unmarshal([]byte(r.stdout), &c); err != nil || len(c.Runs) != 2 || len(c.Settings) == 0 {
			t.Errorf("compare --json: %v: %s", err, r.stdout)
		}
	})

	t.Run("results-dsn", func(t *testing.T) {
		resultsDSN := pgtest.NewDatabase(t)
		copyB := *runB
		copyB.ID = ""
		id, err := storeWhole(ctx, "", resultsDSN, &copyB)
		if err != nil {
			t.Fatal(err)
		}
		nowhere := filepath.Join(lab, "nowhere")
		r := runPgoltp(t, time.Minute, "runs", "--lab", nowhere, "--results-dsn", resultsDSN)
		if r.code != 0 || !strings.Contains(r.stdout, id) || strings.Contains(r.stdout, idA) {
			t.Errorf("runs --results-dsn: exit %d, %q %q", r.code, r.stdout, r.stderr)
		}
		r = runPgoltp(t, time.Minute, "report", "last", "--lab", nowhere, "--results-dsn", resultsDSN, "--format", "json")
		var e report.Export
		if err := json.Unmarshal([]byte(r.stdout), &e); err != nil || e.ID != id || e.Collected == nil {
			t.Errorf("report from --results-dsn: %v (exit %d, %s)", err, r.code, r.stderr)
		}
		r = runPgoltp(t, time.Minute, "runs", "--results-dsn", "postgres://nobody:s3cret@127.0.0.1:1/x?connect_timeout=2")
		assertOneLineProblem(t, r, "--results-dsn")
		if strings.Contains(r.stderr, "s3cret") {
			t.Errorf("the password was printed: %s", r.stderr)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		assertOneLineProblem(t, runPgoltp(t, time.Minute, "report", "no-such-run", "--lab", lab), "no-such-run", "pgoltp runs")
		assertOneLineProblem(t, runPgoltp(t, time.Minute, "report", "last", "--lab", lab, "--format", "pdf"), "pdf")
		assertOneLineProblem(t, runPgoltp(t, time.Minute, "compare", idA, "--lab", lab), "compare")
		assertOneLineProblem(t, runPgoltp(t, time.Minute, "compare", idA, idA, "--lab", lab), idA)
		assertOneLineProblem(t, runPgoltp(t, time.Minute, "report", "--lab", filepath.Join(lab, "nowhere")), "no runs stored")
		r := runPgoltp(t, time.Minute, "runs", "--lab", filepath.Join(lab, "nowhere"))
		if r.code != 0 || !strings.Contains(r.stdout, "No runs stored") {
			t.Errorf("runs in an empty lab: exit %d, %q %q", r.code, r.stdout, r.stderr)
		}
	})
}

// assertPrivate checks that a file with run data is readable by its owner only.
func assertPrivate(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %v, want 0600 (it holds run data)", path, fi.Mode().Perm())
	}
}

// storeWhole stores a finished run whose samples were collected elsewhere, in
// one go (a recording without collectors).
func storeWhole(ctx context.Context, lab, resultsDSN string, run *store.Run) (string, error) {
	rec, err := recorder.Begin(ctx, lab, resultsDSN, "", run, collect.Options{})
	if err != nil {
		return "", err
	}
	return rec.Finish(ctx, store.Complete)
}
