package report_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/pgtest/browser"
	"github.com/pgoltp/pgoltp/internal/pgtest/pgbench"
	"github.com/pgoltp/pgoltp/internal/report"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/workload"
)

func TestMain(m *testing.M) {
	os.Exit(pgtest.Run(m))
}

// measuredRun runs real pgbench with collectors against a fresh database with
// synchronous_commit=off (a risky setting the report must label) and forces a
// checkpoint in the middle (an event the charts must mark).
func measuredRun(t *testing.T, seconds int) *store.Run {
	t.Helper()
	dsn := pgtest.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var db string
	if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{db}.Sanitize()+" SET synchronous_commit = off"); err != nil {
		t.Fatal(err)
	}
	// Initialize first, so that the checkpoint below falls inside the sampled
	// run however long initialization takes on a busy machine; force it twice
	// (at 1/2 and 3/4 of the run) so one late wake-up cannot miss the run.
	if out, err := exec.CommandContext(ctx, pgtest.Pgbench(t), "-i", "-q", dsn).CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v: %s", err, out)
	}
	go func() {
		for _, at := range []time.Duration{time.Duration(seconds) * time.Second / 2, time.Duration(seconds) * time.Second / 4} {
			time.Sleep(at)
			_, _ = conn.Exec(ctx, "CHECKPOINT")
		}
	}()
	run, err := pgbench.Run(ctx, dsn, pgbench.Options{Seconds: seconds, Clients: 4, NoInit: true, Collector: true, Title: "pgbench report test"})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestHTMLReportInChromium renders the report of a real run and opens it in
// headless Chromium: the script ran without errors, every chart has lines,
// the sections the issue asks for are there, and a screenshot is saved.
func TestHTMLReportInChromium(t *testing.T) {
	bin, err := browser.Find()
	if err != nil {
		t.Fatal(err)
	}
	run := measuredRun(t, 8)
	dir := t.TempDir()
	s, err := store.Open(context.Background(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Begin(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	stored, err := s.Load(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := report.HTML(&buf, stored); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// Self-contained: nothing to fetch.
	for _, bad := range []string{"<link", " src=", "url(", "@import", "https://", "//cdn"} {
		if strings.Contains(html, bad) {
			t.Errorf("report refers to something outside the file: %q", bad)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	page, err := browser.Load(ctx, bin, file)
	if err != nil {
		t.Fatal(err)
	}
	if errs := browser.ConsoleErrors(page.Console); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
	dom := page.DOM
	htmlTag := regexp.MustCompile(`<html[^>]*>`).FindString(dom)
	if !strings.Contains(htmlTag, `data-report-ready="ok"`) {
		t.Errorf("the report's script did not finish cleanly (data-report-ready missing or not ok)")
	}
	if strings.Contains(htmlTag, "data-report-errors") {
		t.Errorf("the report recorded script errors: %s", regexp.MustCompile(`(?s)<ul id="report-errors".*?</ul>`).FindString(dom))
	}
	m := regexp.MustCompile(`data-charts-rendered="(\d+)"`).FindStringSubmatch(htmlTag)
	rendered := 0
	if m != nil {
		rendered, _ = strconv.Atoi(m[1])
	}
	charts := strings.Count(dom, `class="tchart"`)
	if rendered < 12 || rendered != charts {
		t.Errorf("%d time charts with lines out of %d; want at least 12, all drawn", rendered, charts)
	}
	for _, want := range []string{
		`id="chart-throughput"`, `id="chart-latency"`, `id="chart-waits"`, // throughput, latency over time, wait profile
		`aria-label="CPU (% of all cores)"`, `aria-label="WAL written"`, `aria-label="Disk IOPS"`, // on the same axis
		`class="marker marker-checkpoint"`, // the forced checkpoint
		`id="latency-table"`, `id="statements-table"`, `id="tables-table"`, `id="settings-table"`,
		`UPDATE pgbench_accounts`, `public.pgbench_accounts`,
		`risk-can-lose-data-on-crash`,                          // synchronous_commit=off
		`>tpcb-like<`, `>select-only<`, `>clients<`, `>scale<`, // every parameter, both types
		`id="collector-cost"`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered report lacks %s", want)
		}
	}
	if n := strings.Count(dom, `class="series"`); n < 20 {
		t.Errorf("only %d chart lines drawn", n)
	}

	// The shared cursor: hovering one chart shows a read-out of its lines and
	// the cursor line on every time chart.
	cur, err := browser.LoadFragment(ctx, bin, file, "cursor-selftest")
	if err != nil {
		t.Fatal(err)
	}
	m = regexp.MustCompile(`data-cursor-selftest="shown:(\d+):(\d+)"`).FindStringSubmatch(regexp.MustCompile(`<html[^>]*>`).FindString(cur.DOM))
	if m == nil || m[1] != "2" || m[2] != strconv.Itoa(charts) {
		t.Errorf("cursor self-test: %v; want the read-out of 2 lines and the cursor on all %d charts", m, charts)
	}

	png := filepath.Join(dir, "report.png")
	if err := browser.Screenshot(ctx, bin, file, png, 1280, 3000); err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("PGOLTP_REPORT_SCREENSHOT"); out != "" {
		b, _ := os.ReadFile(png)
		_ = os.WriteFile(out, b, 0o644)
		_ = os.WriteFile(strings.TrimSuffix(out, ".png")+".html", buf.Bytes(), 0o644)
	}
	t.Logf("screenshot: %s", png)
}

// histOf is a histogram (µs) of a few values.
func histOf(values ...int64) *hdrhistogram.Snapshot {
	h := hdrhistogram.New(1, 60_000_000, 3)
	for _, v := range values {
		_ = h.RecordValue(v)
	}
	return h.Export()
}

// TestHTMLOfSparseRuns renders runs that carry little: a crashed run with
// only its parameters, a run stored without collectors, a run whose driver
// measured no per-second latency. Each must still render, saying what it has.
func TestHTMLOfSparseRuns(t *testing.T) {
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		run  *store.Run
		want []string
		not  []string
	}{
		{"crashed", &store.Run{ID: "r1", Workload: "tpcc", Status: store.Incomplete, StartedAt: start, Params: []store.KV{{Name: "warehouses", Value: "2"}}},
			[]string{"never finished", ">warehouses<", ">2<"}, []string{`class="tchart"`, `id="settings-table"`}},
		{"no collectors", &store.Run{ID: "r2", Workload: "tpcb", Status: store.Complete, StartedAt: start, EndedAt: start.Add(3 * time.Second),
			Headline: []store.Figure{{Name: "TPS", Value: 1234.5, Unit: "txn/s"}},
			Series:   []store.Interval{{Second: 0, Type: "tpcb", Count: 1200}, {Second: 1, Type: "tpcb", Count: 1300}, {Second: 2, Type: "tpcb", Count: 1203, Errors: 3}}},
			[]string{`id="chart-throughput"`, `id="chart-errors"`, ">1,235<", "txn/s"}, []string{`id="chart-latency"`, `id="waits"`, `class="unmeasured"`}},
		{"ramp-up", &store.Run{ID: "r3", Workload: "tpcc", Status: store.Complete, StartedAt: start, EndedAt: start.Add(4 * time.Second),
			MeasureStart: start.Add(2 * time.Second), MeasureEnd: start.Add(4 * time.Second),
			Series: []store.Interval{{Second: 0, Type: "new_order", Count: 10, P50: 900, P95: 2000, P99: 3000}, {Second: 3, Type: "new_order", Count: 12, P50: 800, P95: 1900, P99: 2500}}},
			[]string{`class="unmeasured"`, ">ramp-up<", `id="chart-latency"`}, []string{">after<"}},
		// a script run: a histogram per script, -r's statements in a table
		// of their own, not as headline cards
		{"script", &store.Run{ID: "r4", Workload: "script", Status: store.Complete, StartedAt: start, EndedAt: start.Add(2 * time.Second),
			Headline: []store.Figure{{Name: "TPS", Value: 100, Unit: "txn/s"},
				{Name: workload.StatementName("hot.sql", `\set aid random_zipfian(1, :hot, 1.1)`), Value: 0.004, Unit: "ms"},
				{Name: workload.StatementName("builtin: select only", "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;"), Value: 0.25, Unit: "ms"}},
			Latency: map[string]*hdrhistogram.Snapshot{"hot.sql": histOf(1200, 5000), "builtin: select only": histOf(250, 900)}},
			[]string{`id="statement-table"`, ">hot.sql<", `random_zipfian(1, :hot, 1.1)`, ">builtin: select only<", ">0.250<"},
			[]string{`<div class="n">statement`}},
		// data larger than memory: the I/O paragraph; 30 checkpoints: a
		// summary line, the table folded behind it
		{"io", &store.Run{ID: "r5", Workload: "tpcc", Status: store.Complete, StartedAt: start, EndedAt: start.Add(40 * time.Second),
			Samples: ioSamples(start)},
			[]string{`id="io-picture"`, "larger than memory", "2.0 blocks read per transaction", `id="events-summary"`,
				"30 events: 30 checkpoint (30 requested; one every 1 s)", "<details><summary>every event</summary>"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := report.HTML(&buf, tc.run); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("lacks %s", w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(buf.String(), n) {
					t.Errorf("should not contain %s", n)
				}
			}
		})
	}
}

// ioSamples is 40 seconds of a run on data twice the memory, with a
// requested checkpoint every 1.33 s.
func ioSamples(start time.Time) *collect.Samples {
	s := &collect.Samples{Start: start, End: start.Add(40 * time.Second), Facts: []collect.Fact{
		{Scope: "server", Name: "database_size_after", Value: "8589934592"}, {Scope: "os", Name: "memory", Value: "4 GiB"}}}
	for i := 1; i <= 40; i++ {
		at := start.Add(time.Duration(i) * time.Second)
		s.Points = append(s.Points, collect.Point{At: at, Metric: "pg.xact.commits_per_s", Value: 500},
			collect.Point{At: at, Metric: "pg.xact.rollbacks_per_s", Value: 0},
			collect.Point{At: at, Metric: "pg.blks.read_per_s", Value: 1000},
			collect.Point{At: at, Metric: "pg.blks.hit_per_s", Value: 9000})
		if i%4 != 0 && len(s.Events) < 30 {
			s.Events = append(s.Events, collect.Event{At: at, Kind: "checkpoint", Detail: "requested checkpoint"})
		}
	}
	return s
}
