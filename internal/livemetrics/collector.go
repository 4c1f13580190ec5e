package livemetrics

import (
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/collect"
	"sort"
	"strings"
	"unicode"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	descInfo = prometheus.NewDesc("pgoltp_run_info", "The run: its id, workload, group and part, PostgreSQL major, path and mode.",
		[]string{"run_id", "workload", "group", "part", "pg_major", "path", "mode"}, nil)
	descTxns = prometheus.NewDesc("pgoltp_transactions_total", "Transactions by type and outcome (committed, failed, rolled_back, skipped).",
		[]string{"workload", "type", "outcome"}, nil)
	descRetries = prometheus.NewDesc("pgoltp_transaction_retries_total", "Retries of serialization failures and deadlocks, by type.",
		[]string{"workload", "type"}, nil)
	descLatency = prometheus.NewDesc("pgoltp_transaction_latency_seconds", "Latency of committed transactions, by type.",
		[]string{"workload", "type"}, nil)
	descTPS = prometheus.NewDesc("pgoltp_interval_tps", "Committed transactions per second over the last interval, by type.",
		[]string{"workload", "type"}, nil)
	descHeadline = prometheus.NewDesc("pgoltp_headline_rate", "The run's headline rate over the last interval (tpmC: New-Orders per minute).",
		[]string{"workload", "figure"}, nil)
)

// latencyBuckets fit OLTP latencies: 100 µs to 30 s, about three per decade.
var latencyBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
	0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// Describe is unchecked: the collectors' metrics are known only at run time.
func (e *Exporter) Describe(chan<- *prometheus.Desc) {}

// Collect writes the current values (prometheus.Collector).
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	defer e.mu.Unlock()
	w := e.info.Workload
	ch <- prometheus.MustNewConstMetric(descInfo, prometheus.GaugeValue, 1,
		e.info.RunID, w, e.info.Group, e.info.Part, e.info.PGMajor, e.info.Path, e.info.Mode)
	for k, n := range e.counts {
		ch <- prometheus.MustNewConstMetric(descTxns, prometheus.CounterValue, n, w, k[0], k[1])
	}
	for typ, n := range e.retries {
		ch <- prometheus.MustNewConstMetric(descRetries, prometheus.CounterValue, n, w, typ)
	}
	for typ, h := range e.latency {
		count, sum, buckets := classic(h)
		ch <- prometheus.MustNewConstHistogram(descLatency, count, sum, buckets, w, typ)
	}
	for typ, r := range e.lastRate {
		ch <- prometheus.MustNewConstMetric(descTPS, prometheus.GaugeValue, r, w, typ)
	}
	for _, r := range e.headline {
		ch <- prometheus.MustNewConstMetric(descHeadline, prometheus.GaugeValue, e.lastRate[r.Type]*r.Per.Seconds(), w, r.Figure)
	}
	if e.collected != nil {
		collectedMetrics(ch, e.collected())
	}
}

// classic turns an HDR histogram (µs) into a Prometheus histogram (s): the
// count at or below each bucket's bound (within the histogram's 0.1%), and
// the sum from its mean.
func classic(h *hdrhistogram.Histogram) (uint64, float64, map[float64]uint64) {
	buckets := make(map[float64]uint64, len(latencyBuckets))
	var below int64
	i := 0
	for _, bar := range h.Distribution() {
		for i < len(latencyBuckets) && float64(bar.From) > latencyBuckets[i]*1e6 {
			buckets[latencyBuckets[i]] = uint64(below)
			i++
		}
		below += bar.Count
	}
	for ; i < len(latencyBuckets); i++ {
		buckets[latencyBuckets[i]] = uint64(below)
	}
	n := h.TotalCount()
	return uint64(n), h.Mean() * float64(n) / 1e6, buckets
}

// collectedMetrics writes the collectors' latest samples as gauges named
// for their metric ("os.cpu.user_pct" is pgoltp_os_cpu_user_pct), with the
// instance (a device, a table) as the key label.
func collectedMetrics(ch chan<- prometheus.Metric, points []collect.Point) {
	sort.Slice(points, func(i, j int) bool {
		if points[i].Metric != points[j].Metric {
			return points[i].Metric < points[j].Metric
		}
		return points[i].Key < points[j].Key
	})
	var desc *prometheus.Desc
	last, scale := "", 1.0
	for _, p := range points {
		if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
			continue
		}
		if p.Metric != last {
			var name string
			name, scale = MetricName(p.Metric)
			desc = prometheus.NewDesc(name, "pgoltp collector sample "+p.Metric+" (its latest value, in base units).", []string{"key"}, nil)
			last = p.Metric
		}
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, p.Value*scale, p.Key)
	}
}

// MetricName is a collector metric's name in Prometheus's alphabet and
// base units ("pg.wal.mb_per_s" is pgoltp_pg_wal_bytes_per_second), and the
// factor from the collector's unit to it.
func MetricName(metric string) (string, float64) {
	var b strings.Builder
	b.WriteString("pgoltp_")
	for _, r := range metric {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteByte('_')
		}
	}
	name := b.String()
	if strings.HasPrefix(metric, "os.mem.") && strings.HasSuffix(name, "_mb") {
		return strings.TrimSuffix(name, "_mb") + "_bytes", 1 << 20 // from /proc/meminfo's kB: MiB
	}
	for _, u := range baseUnits {
		if stem, ok := strings.CutSuffix(name, u.suffix); ok {
			return stem + u.base, u.scale
		}
	}
	return name, 1
}

// baseUnits turn the collectors' unit suffixes into Prometheus's base units
// (checked by promtool check metrics): seconds and bytes, "per_second", no
// "_total" or "_count" on a gauge. The first suffix that matches applies.
var baseUnits = []struct {
	suffix, base string
	scale        float64
}{
	{"_mb_per_s", "_bytes_per_second", 1e6}, // the collectors' rates are in MB (10^6 bytes)
	{"_per_s", "_per_second", 1},
	{"_ms", "_seconds", 1e-3},
	{"_mb", "_bytes", 1e6},
	{"_s", "_seconds", 1},
	{"_total", "_all", 1},
	{"_count", "s", 1},
}
