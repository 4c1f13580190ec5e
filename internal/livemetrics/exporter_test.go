package livemetrics

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/metrics"
)

// snapshot is one interval of two types with the given latencies (µs) and
// error counts.
func snapshot(start time.Time, lat map[string][]int64, errs map[string]int64) *metrics.Snapshot {
	kinds := []string{"new_order", "payment"}
	s := &metrics.Snapshot{Kinds: kinds, CounterNames: []string{"errors", "retries"}, Start: start, End: start.Add(time.Second),
		Hists: make([]*hdrhistogram.Histogram, 2), Clamped: make([]int64, 2), Counters: make([][]int64, 2)}
	for k, name := range kinds {
		s.Hists[k] = metrics.NewHistogram()
		for _, v := range lat[name] {
			_ = s.Hists[k].RecordValue(v)
		}
		s.Counters[k] = []int64{errs[name], 1}
	}
	return s
}

// The exposed counters, buckets and rates add up to the intervals fed in.
func TestExporterAddsUp(t *testing.T) {
	e := New(Info{Workload: "tpcc", Path: "client"}, Rate{Figure: "tpmC", Type: "new_order", Per: time.Minute})
	t0 := time.Now()
	e.Interval(snapshot(t0, map[string][]int64{"new_order": {200, 800, 3000}, "payment": {100}}, map[string]int64{"new_order": 1}), "errors")
	e.Interval(snapshot(t0.Add(time.Second), map[string][]int64{"new_order": {40000}}, nil), "errors")
	e.SetCollected(func() []collect.Point {
		return []collect.Point{{Metric: "pg.wal.mb_per_s", Value: 2}, {Metric: "os.disk.await_ms", Key: "vda", Value: 4}}
	})
	want := `
# HELP pgoltp_transactions_total Transactions by type and outcome (committed, failed, rolled_back, skipped).
# TYPE pgoltp_transactions_total counter
pgoltp_transactions_total{outcome="committed",type="new_order",workload="tpcc"} 4
pgoltp_transactions_total{outcome="committed",type="payment",workload="tpcc"} 1
pgoltp_transactions_total{outcome="failed",type="new_order",workload="tpcc"} 1
pgoltp_transactions_total{outcome="failed",type="payment",workload="tpcc"} 0
# HELP pgoltp_headline_rate The run's headline rate over the last interval (tpmC: New-Orders per minute).
# TYPE pgoltp_headline_rate gauge
pgoltp_headline_rate{figure="tpmC",workload="tpcc"} 60
# HELP pgoltp_pg_wal_bytes_per_second pgoltp collector sample pg.wal.mb_per_s (its latest value, in base units).
# TYPE pgoltp_pg_wal_bytes_per_second gauge
pgoltp_pg_wal_bytes_per_second{key=""} 2e+06
# HELP pgoltp_os_disk_await_seconds pgoltp collector sample os.disk.await_ms (its latest value, in base units).
# TYPE pgoltp_os_disk_await_seconds gauge
pgoltp_os_disk_await_seconds{key="vda"} 0.004
`
	if err := testutil.CollectAndCompare(e, strings.NewReader(want), "pgoltp_transactions_total", "pgoltp_headline_rate",
		"pgoltp_pg_wal_bytes_per_second", "pgoltp_os_disk_await_seconds"); err != nil {
		t.Error(err)
	}
	rec := httptest.NewRecorder()
	e.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, line := range []string{
		`pgoltp_transaction_latency_seconds_bucket{type="new_order",workload="tpcc",le="0.00025"} 1`,
		`pgoltp_transaction_latency_seconds_bucket{type="new_order",workload="tpcc",le="0.001"} 2`,
		`pgoltp_transaction_latency_seconds_bucket{type="new_order",workload="tpcc",le="0.005"} 3`,
		`pgoltp_transaction_latency_seconds_bucket{type="new_order",workload="tpcc",le="0.05"} 4`,
		`pgoltp_transaction_latency_seconds_count{type="new_order",workload="tpcc"} 4`,
		`pgoltp_transaction_retries_total{type="new_order",workload="tpcc"} 2`,
	} {
		if !strings.Contains(body, line) {
			t.Errorf("the scrape lacks %s:\n%s", line, body)
		}
	}
}

// The collectors' MB are 10^6 bytes, but memory's are MiB (from
// /proc/meminfo's kB): each converts to bytes by its own factor.
func TestMetricNameUnits(t *testing.T) {
	for metric, want := range map[string]struct {
		name  string
		scale float64
	}{
		"os.disk.write_mb_per_s":    {"pgoltp_os_disk_write_bytes_per_second", 1e6},
		"os.mem.dirty_mb":           {"pgoltp_os_mem_dirty_bytes", 1 << 20},
		"replication.replay_lag_mb": {"pgoltp_replication_replay_lag_bytes", 1e6},
		"os.disk.await_ms":          {"pgoltp_os_disk_await_seconds", 1e-3},
		"pg.sessions.total":         {"pgoltp_pg_sessions_all", 1},
		"pg.table.autovacuum_count": {"pgoltp_pg_table_autovacuums", 1},
		"os.cpu.user_pct":           {"pgoltp_os_cpu_user_pct", 1},
		"pg.xact.longest_s":         {"pgoltp_pg_xact_longest_seconds", 1},
		"os.context_switches_per_s": {"pgoltp_os_context_switches_per_second", 1},
	} {
		name, scale := MetricName(metric)
		if name != want.name || scale != want.scale {
			t.Errorf("MetricName(%s) = %s × %g, want %s × %g", metric, name, scale, want.name, want.scale)
		}
	}
}
