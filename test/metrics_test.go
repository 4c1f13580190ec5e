package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// prometheusBinaries returns prometheus and promtool (Debian's package, which
// the test command installs); outside CI a machine without them skips.
func prometheusBinaries(t *testing.T) (string, string) {
	t.Helper()
	prom, err1 := exec.LookPath("prometheus")
	tool, err2 := exec.LookPath("promtool")
	if err1 != nil || err2 != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("prometheus and promtool are missing: ./scripts/test installs them (Debian's prometheus package)")
		}
		t.Skip("needs Debian's prometheus package (prometheus, promtool)")
	}
	return prom, tool
}

// freePort returns a loopback port nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startPrometheus starts a Prometheus on loopback with data in dataDir,
// scraping target (if any) every second, and returns its API's base URL.
func startPrometheus(t *testing.T, bin, dataDir, target string) string {
	t.Helper()
	cfg := "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs: []\n"
	if target != "" {
		cfg = fmt.Sprintf("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: pgoltp\n    static_configs:\n      - targets: ['%s']\n", target)
	}
	cfgFile := filepath.Join(t.TempDir(), "prometheus.yml")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	cmd := exec.Command(bin, "--config.file="+cfgFile, "--storage.tsdb.path="+dataDir,
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), "--log.level=warn")
	logFile, _ := os.Create(filepath.Join(t.TempDir(), "prometheus.log"))
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); logFile.Close() })
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if resp, err := http.Get(base + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
	}
	b, _ := os.ReadFile(logFile.Name())
	t.Fatalf("prometheus did not become ready:\n%s", b)
	return ""
}

// promTarget is a scrape target as Prometheus's /api/v1/targets shows it.
type promTarget struct {
	ScrapeURL  string    `json:"scrapeUrl"`
	Health     string    `json:"health"`
	LastError  string    `json:"lastError"`
	LastScrape time.Time `json:"lastScrape"`
}

// findTarget returns Prometheus's view of the target scraping addr (the
// zero target while Prometheus has not taken it up yet).
func findTarget(t *testing.T, base, addr string) promTarget {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/targets?state=active")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			ActiveTargets []promTarget `json:"activeTargets"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("prometheus targets: %v", err)
	}
	for _, tg := range body.Data.ActiveTargets {
		if strings.Contains(tg.ScrapeURL, "//"+addr+"/") {
			return tg
		}
	}
	return promTarget{}
}

// waitScraping waits until Prometheus's scrape loop has tried addr once
// (nothing need listen there yet): from then on it scrapes every second.
func waitScraping(t *testing.T, base, addr string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for findTarget(t, base, addr).LastScrape.IsZero() {
		if time.Now().After(deadline) {
			t.Fatalf("prometheus never tried to scrape %s", addr)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// targetState says how Prometheus's last scrape of addr went.
func targetState(t *testing.T, base, addr string) string {
	tg := findTarget(t, base, addr)
	return fmt.Sprintf("%s, last scrape %s, error %q", tg.Health, tg.LastScrape.Format(time.RFC3339Nano), tg.LastError)
}

// promQuery runs an instant PromQL query at time at and returns its vector.
func promQuery(t *testing.T, base, expr string, at time.Time) []float64 {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?" + url.Values{"query": {expr}, "time": {strconv.FormatFloat(float64(at.UnixMilli())/1000, 'f', 3, 64)}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status string
		Error  string
		Data   struct {
			Result []struct {
				Value [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.Status != "success" {
		t.Fatalf("query %s: %v %s", expr, err, body.Error)
	}
	var out []float64
	for _, r := range body.Data.Result {
		v, _ := strconv.ParseFloat(r.Value[1].(string), 64)
		out = append(out, v)
	}
	return out
}

// A real Prometheus scrapes a TPC-B run every second through --metrics-addr:
// a scrape passes promtool, the committed transactions it ends with are the
// run's own within 1%, and every expression of the Grafana dashboard in
// docs/grafana returns data. The stored run, written with --format
// openmetrics and backfilled by promtool, gives the same total.
func TestMetricsEndpointWithPrometheus(t *testing.T) {
	t.Parallel()
	prom, promtool := prometheusBinaries(t)
	dsn := pgtest.NewDatabase(t)
	lab := labDir(t)
	if r := runPgoltp(t, 2*time.Minute, "--dsn", dsn, "tpcb", "load", "--scale", "1"); r.code != 0 {
		t.Fatalf("tpcb load: %s", r.stderr)
	}
	port := freePort(t)
	target := fmt.Sprintf("127.0.0.1:%d", port)
	base := startPrometheus(t, prom, t.TempDir(), target)
	// Prometheus hands a new target to its scrape loop only after its
	// discovery and reload ticks (5 s each): a run started before that can
	// end unscraped. Start it once the loop has tried the address.
	waitScraping(t, base, target)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	run := exec.CommandContext(ctx, pgoltpBinary(t), "--dsn", dsn, "--lab", lab, "--json", "tpcb", "run",
		"--duration", "8s", "--progress", "0", "--metrics-addr", target)
	run.Dir = t.TempDir()
	var stdout strings.Builder
	run.Stdout = &stdout
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	checkScrape(t, promtool, scrapeOnceMeasuring(t, "http://"+target+"/metrics"))
	if err := run.Wait(); err != nil {
		t.Fatalf("tpcb run: %v", err)
	}
	end := time.Now()
	var res struct {
		Committed int64 `json:"committed"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &res); err != nil || res.Committed == 0 {
		t.Fatalf("tpcb run --json: %v: %s", err, stdout.String())
	}
	// Over the last minute: the scrapes that failed once the endpoint closed
	// mark the series stale, which an instant query at end could hit.
	got := promQuery(t, base, `sum(max_over_time(pgoltp_transactions_total{outcome="committed"}[1m]))`, end)
	if len(got) != 1 || got[0] < 0.99*float64(res.Committed) || got[0] > 1.01*float64(res.Committed) {
		t.Errorf("Prometheus has %v committed transactions, the run %d (target %s)", got, res.Committed, targetState(t, base, target))
	}
	for _, expr := range dashboardExprs(t) {
		if v := promQuery(t, base, expr, end.Add(-3*time.Second)); len(v) == 0 {
			t.Errorf("the dashboard's %s returns no data", expr)
		}
	}
	backfilled := backfill(t, promtool, lab)
	base2 := startPrometheus(t, prom, backfilled, "")
	got = promQuery(t, base2, `sum(max_over_time(pgoltp_transactions_total{outcome="committed"}[1h]))`, end)
	if len(got) != 1 || got[0] < 0.99*float64(res.Committed) || got[0] > 1.01*float64(res.Committed) {
		t.Errorf("the backfilled run has %v committed transactions, the run %d", got, res.Committed)
	}
}

// measuring says a scrape holds the run's latency histogram and the
// collectors' gauges: what the endpoint serves once the run measures.
func measuring(body string) bool {
	return strings.Contains(body, "pgoltp_transaction_latency_seconds_bucket") && strings.Contains(body, "pgoltp_os_cpu_user_pct")
}

// scrapeOnceMeasuring scrapes url until the run measures (a fixed 4 s
// wait found a run on a busy machine still starting) and returns that
// scrape, or the last one after two minutes.
func scrapeOnceMeasuring(t *testing.T, url string) string {
	t.Helper()
	var body []byte
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline) && !measuring(string(body)); time.Sleep(200 * time.Millisecond) {
		if resp, err := http.Get(url); err == nil {
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
	}
	return string(body)
}

// checkScrape runs promtool check metrics on a scrape.
func checkScrape(t *testing.T, promtool, body string) {
	t.Helper()
	check := exec.Command(promtool, "check", "metrics")
	check.Stdin = strings.NewReader(body)
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
	if !measuring(body) {
		t.Errorf("the scrape lacks the latency histogram or the collectors' gauges:\n%s", body)
	}
}

// dashboardExprs are the PromQL expressions of docs/grafana's dashboard,
// with its variables filled in as Grafana would.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "docs", "grafana", "pgoltp-live.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	fill := strings.NewReplacer("$__rate_interval", "5s", "$workload", ".+")
	var exprs []string
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			exprs = append(exprs, fill.Replace(tg.Expr))
		}
	}
	if len(exprs) < 10 {
		t.Fatalf("the dashboard has %d expressions", len(exprs))
	}
	return exprs
}

// backfill writes the lab's last run as OpenMetrics and turns it into
// Prometheus blocks with promtool; it returns the blocks' directory.
func backfill(t *testing.T, promtool, lab string) string {
	t.Helper()
	om := filepath.Join(t.TempDir(), "run.om")
	if r := runPgoltp(t, time.Minute, "--lab", lab, "report", "last", "--format", "openmetrics", "-o", om); r.code != 0 {
		t.Fatalf("report --format openmetrics: %s", r.stderr)
	}
	dir := t.TempDir()
	if out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", om, dir).CombinedOutput(); err != nil {
		t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, out)
	}
	return dir
}

// An experiment serves its runs' metrics as a run command does.
func TestExperimentServesMetrics(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(plan, []byte("workload: {kind: ledger, scale: 1, clients: 2}\nduration: 3s\nrepetitions: 2\nprewarm: 0s\n"+
		"steps:\n  - name: work_mem\n    settings: {work_mem: 8MB}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	target := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, pgoltpBinary(t), "--dsn", dsn, "--lab", labDir(t), "experiment", plan, "--metrics-addr", target)
	cmd.Dir = t.TempDir()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var committed bool
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline) && !committed; time.Sleep(500 * time.Millisecond) {
		resp, err := http.Get("http://" + target + "/metrics")
		if err != nil {
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		committed = strings.Contains(string(body), `pgoltp_transactions_total{outcome="committed",type="transaction",workload="ledger"}`)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("experiment: %v\n%s", err, stderr.String())
	}
	if !committed {
		t.Errorf("the experiment's endpoint never showed committed transactions\n%s", stderr.String())
	}
}
