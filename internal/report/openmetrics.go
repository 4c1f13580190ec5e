package report

import (
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/pgoltp/pgoltp/internal/livemetrics"
	"github.com/pgoltp/pgoltp/internal/store"
)

// OpenMetrics writes a stored run's series with their timestamps, in the
// names the live endpoint (--metrics-addr) uses, for backfilling a
// Prometheus: promtool tsdb create-blocks-from openmetrics FILE DIR. Each
// second of the run gives the transactions so far by type and outcome, the
// second's rate and percentiles, and every collector sample at its time.
func OpenMetrics(w io.Writer, run *store.Run) error {
	fams := newFamilies()
	ivs := append([]store.Interval(nil), run.Series...)
	sort.SliceStable(ivs, func(i, j int) bool { return ivs[i].Second < ivs[j].Second })
	committed, failed := map[string]float64{}, map[string]float64{}
	for _, iv := range ivs {
		length := iv.Length
		if length <= 0 {
			length = 1
		}
		at := run.StartedAt.Add(time.Duration((float64(iv.Second) + length) * float64(time.Second)))
		committed[iv.Type] += float64(iv.Count)
		failed[iv.Type] += float64(iv.Errors)
		labels := []string{run.ID, run.Workload, iv.Type}
		fams.add("pgoltp_transactions_total", "Transactions by type and outcome.", prometheus.CounterValue, outcomeLabels, at, committed[iv.Type], append(labels, "committed")...)
		fams.add("pgoltp_transactions_total", "", prometheus.CounterValue, outcomeLabels, at, failed[iv.Type], append(labels, "failed")...)
		fams.add("pgoltp_interval_tps", "Committed transactions per second over the interval, by type.", prometheus.GaugeValue, typeLabels, at, iv.Rate(), labels...)
		if iv.Count > 0 {
			for _, q := range []struct {
				name string
				us   float64
			}{{"pgoltp_interval_latency_p50_seconds", iv.P50}, {"pgoltp_interval_latency_p95_seconds", iv.P95}, {"pgoltp_interval_latency_p99_seconds", iv.P99}} {
				fams.add(q.name, "Latency percentile of the interval's committed transactions, by type.", prometheus.GaugeValue, typeLabels, at, q.us/1e6, labels...)
			}
		}
	}
	if run.Samples != nil {
		for _, p := range run.Samples.Points {
			if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
				continue
			}
			name, scale := livemetrics.MetricName(p.Metric)
			fams.add(name, "pgoltp collector sample "+p.Metric+" (in base units).", prometheus.GaugeValue, keyLabels, p.At, p.Value*scale, run.ID, run.Workload, p.Key)
		}
	}
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeOpenMetrics))
	for _, name := range fams.order {
		bySeries(fams.byName[name])
		if err := enc.Encode(fams.byName[name]); err != nil {
			return err
		}
	}
	_, err := expfmt.FinalizeOpenMetrics(w)
	return err
}

// The labels of the families.
var (
	outcomeLabels = []string{"run_id", "workload", "type", "outcome"}
	typeLabels    = []string{"run_id", "workload", "type"}
	keyLabels     = []string{"run_id", "workload", "key"}
)

// bySeries orders a family's samples series by series, each in time order,
// as OpenMetrics wants the points of one series together.
func bySeries(fam *dto.MetricFamily) {
	key := func(m *dto.Metric) string {
		var b strings.Builder
		for _, l := range m.GetLabel() {
			b.WriteString(l.GetValue())
			b.WriteByte(0)
		}
		return b.String()
	}
	sort.SliceStable(fam.Metric, func(i, j int) bool {
		ki, kj := key(fam.Metric[i]), key(fam.Metric[j])
		if ki != kj {
			return ki < kj
		}
		return fam.Metric[i].GetTimestampMs() < fam.Metric[j].GetTimestampMs()
	})
}

// families collects timestamped samples into metric families, in the order
// their names first appear.
type families struct {
	order  []string
	byName map[string]*dto.MetricFamily
	descs  map[string]*prometheus.Desc
}

func newFamilies() *families {
	return &families{byName: map[string]*dto.MetricFamily{}, descs: map[string]*prometheus.Desc{}}
}

// add appends one sample at t.
func (f *families) add(name, help string, kind prometheus.ValueType, names []string, t time.Time, v float64, labels ...string) {
	desc, ok := f.descs[name]
	if !ok {
		if help == "" {
			help = name
		}
		desc = prometheus.NewDesc(name, help, names, nil)
		f.descs[name] = desc
	}
	m := prometheus.NewMetricWithTimestamp(t, prometheus.MustNewConstMetric(desc, kind, v, labels...))
	var out dto.Metric
	if err := m.Write(&out); err != nil {
		return
	}
	fam, ok := f.byName[name]
	if !ok {
		typ := dto.MetricType_GAUGE
		if kind == prometheus.CounterValue {
			typ = dto.MetricType_COUNTER
		}
		fam = &dto.MetricFamily{Name: &name, Help: &help, Type: &typ}
		f.byName[name] = fam
		f.order = append(f.order, name)
	}
	fam.Metric = append(fam.Metric, &out)
}
