package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/store"
)

// weekRun is a synthetic stored run of a week with known drift: in hour h
// throughput is 1000 − 2h txn/s and p99 is 5 + 0.01h ms (intervals of 20 s,
// as the series holds a week once merged below its cap); the collectors saw
// 0.5 MB/s of WAL and the same commit rate, a checkpoint every 30 minutes,
// one autovacuum and one autoanalyze of pgbench_accounts an hour, and one
// transaction open for an hour at hour 100.
func weekRun(hours int) *store.Run {
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	r := &store.Run{ID: "week", Workload: "tpcb", Title: "soak", StartedAt: start,
		EndedAt: start.Add(time.Duration(hours) * time.Hour), Status: store.Complete}
	const step = 20
	for sec := 0; sec < hours*3600; sec += step {
		h := float64(sec / 3600)
		r.Series = append(r.Series, store.Interval{Second: sec, Length: step, Type: "transaction",
			Count: int64((1000 - 2*h) * step), P50: 1000, P99: (5 + 0.01*h) * 1000})
	}
	s := &collect.Samples{Start: start, End: r.EndedAt, Interval: time.Minute}
	for m := 0; m < hours*60; m++ {
		at := start.Add(time.Duration(m)*time.Minute + 30*time.Second)
		h := float64(m / 60)
		s.Points = append(s.Points,
			collect.Point{At: at, Metric: "pg.wal.mb_per_s", Value: 0.5},
			collect.Point{At: at, Metric: "pg.xact.commits_per_s", Value: 1000 - 2*h},
			collect.Point{At: at, Metric: collect.MetricAutovacuums, Key: "public.pgbench_accounts", Value: h + 3},
			collect.Point{At: at, Metric: collect.MetricAutoanalyzes, Key: "public.pgbench_accounts", Value: h + 7},
			collect.Point{At: at, Metric: collect.MetricDatabaseSize, Value: 1e9 + float64(m)*1e5},
			collect.Point{At: at, Metric: collect.MetricTableSize, Key: "public.pgbench_accounts", Value: 8e8 + float64(m)*1e5},
		)
		longest := 0.5
		if m >= 100*60 && m < 101*60 {
			longest = float64(m-100*60) * 60
		}
		s.Points = append(s.Points, collect.Point{At: at, Metric: collect.MetricLongestXact, Value: longest})
		if m%30 == 0 {
			s.Events = append(s.Events, collect.Event{At: at, Kind: "checkpoint", Detail: "timed checkpoint finished"})
		}
	}
	r.Samples = s
	return r
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestLongRunPanelsOfAWeek(t *testing.T) {
	const hours = 168
	lr := longRunView(weekRun(hours))
	if lr == nil {
		t.Fatal("no long-run view for a week")
	}
	if len(lr.Hours) != hours || lr.DriftType != "transaction" {
		t.Fatalf("%d hours of %q, want %d of transaction", len(lr.Hours), lr.DriftType, hours)
	}
	// The synthetic series is exactly linear: the fit must recover it.
	if !near(lr.Throughput.PerHour, -2, 1e-9) || !near(lr.Throughput.Intercept, 1000, 1e-6) {
		t.Errorf("throughput trend %+v, want −2 txn/s per hour from 1000", lr.Throughput)
	}
	if want := (1000 - 2.0*(hours-1)) / 1000; !near(lr.Throughput.LastOverFirst, want, 1e-12) {
		t.Errorf("throughput last/first %v, want %v", lr.Throughput.LastOverFirst, want)
	}
	if !near(lr.P99.PerHour, 0.01, 1e-9) || !near(lr.P99.LastOverFirst, (5+0.01*(hours-1))/5, 1e-9) {
		t.Errorf("p99 trend %+v, want +0.01 ms per hour, last/first %v", lr.P99, (5+0.01*(hours-1))/5)
	}
	for _, h := range []int{0, 50, hours - 1} {
		row := lr.Hours[h]
		if want := 0.5e6 / (1000 - 2*float64(h)); !near(row.WALPerTxn, want, 1e-6) {
			t.Errorf("hour %d: WAL per transaction %v, want %v", h, row.WALPerTxn, want)
		}
		if row.Checkpoints != 2 {
			t.Errorf("hour %d: %d checkpoints, want 2", h, row.Checkpoints)
		}
		wantRuns := int64(1)
		if h == 0 {
			wantRuns = 0 // the first reading is the baseline
		}
		if row.Autovacuums != wantRuns || row.Autoanalyzes != wantRuns {
			t.Errorf("hour %d: %d autovacuums, %d autoanalyzes, want %d each", h, row.Autovacuums, row.Autoanalyzes, wantRuns)
		}
	}
	if len(lr.Tables) != 1 || lr.Tables[0] != (TableVacuums{"public.pgbench_accounts", hours - 1, hours - 1}) {
		t.Errorf("per-table runs %+v, want %d autovacuums and autoanalyzes of pgbench_accounts", lr.Tables, hours-1)
	}
	if lr.Checkpoints != hours*2 {
		t.Errorf("%d checkpoints, want %d", lr.Checkpoints, hours*2)
	}
	if lr.LongestXact != 59*60 || !near(lr.LongestXactAt, (100*60+59)*60+30, 1e-9) {
		t.Errorf("longest transaction %v s at %v s", lr.LongestXact, lr.LongestXactAt)
	}

	var j bytes.Buffer
	if err := JSON(&j, weekRun(hours)); err != nil {
		t.Fatal(err)
	}
	var exported struct {
		LongRun *LongRun `json:"long_run"`
	}
	if err := json.Unmarshal(j.Bytes(), &exported); err != nil || exported.LongRun == nil || len(exported.LongRun.Hours) != hours ||
		exported.LongRun.Throughput != lr.Throughput {
		t.Errorf("the JSON export lacks the long-run view (%v): %+v", err, exported.LongRun)
	}

	var b bytes.Buffer
	if err := HTML(&b, weekRun(hours)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`id="longrun"`, `id="chart-lr-tps"`, `id="chart-lr-p99"`, `id="chart-lr-wal"`, `id="chart-lr-ckpt"`,
		`id="chart-lr-vac"`, `id="hours-table"`, `id="vacuum-table"`, `id="chart-g-db"`, `id="chart-g-table"`, `id="chart-g-xact"`,
		"throughput -2.00 txn/s per hour", "last hour / first hour 0.666", "least-squares trend"} {
		if !strings.Contains(page, want) {
			t.Errorf("the report of a week lacks %q", want)
		}
	}
	if n := strings.Count(page[strings.Index(page, `id="hours-table"`):], "<tr>") - 1; n < hours {
		t.Errorf("hours table has %d rows, want %d", n, hours)
	}
}

// A run just under LongRunPanelsFrom gets no per-hour panels: one or two
// points make no trend.
func TestLongRunPanelsNeedTwoHours(t *testing.T) {
	r := weekRun(2)
	r.EndedAt = r.StartedAt.Add(LongRunPanelsFrom - time.Minute)
	if lr := longRunView(r); lr != nil {
		t.Fatalf("a run of %s got long-run panels", r.Duration())
	}
	var b bytes.Buffer
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `id="longrun"`) {
		t.Error("the report of a short run shows the long-run section")
	}
	if !strings.Contains(b.String(), `id="chart-g-db"`) {
		t.Error("sizes over time are drawn for any run with two readings")
	}
}

// A soak whose process was killed (incomplete: no end stored) still gets
// the panels of the hours its series cover: the killed run is the one whose
// drift its user most wants to see.
func TestLongRunPanelsOfAKilledRun(t *testing.T) {
	r := weekRun(3)
	r.EndedAt, r.Status = time.Time{}, store.Incomplete
	r.Series = r.Series[:len(r.Series)-90] // killed half an hour before the end
	lr := longRunView(r)
	if lr == nil {
		t.Fatalf("a killed run with %s of series got no long-run panels", r.Duration())
	}
	if len(lr.Hours) != 2 {
		t.Errorf("%d full hours, want 2 (the third was cut short)", len(lr.Hours))
	}
	if got := lr.Hours[1].TPS; !near(got, 998, 0.01) {
		t.Errorf("hour 2: %.2f txn/s, want 998", got)
	}
	var b bytes.Buffer
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `id="longrun"`) {
		t.Error("the report of a killed soak lacks the long-run section")
	}
}

// withHourly gives r one histogram per hour of its drift type: 97% of the
// hour's transactions at 1 ms and 3% at 20+h ms, so the hour's p99 is
// 20+h ms while its intervals' p99s (5+0.01h ms in weekRun) say otherwise.
func withHourly(t *testing.T, r *store.Run, hours int) []*hdrhistogram.Histogram {
	t.Helper()
	var hs []*hdrhistogram.Histogram
	for h := range hours {
		hist := hdrhistogram.New(1, 3_600_000_000, 3)
		_ = hist.RecordValues(1000, 97_000)
		_ = hist.RecordValues(int64(20+h)*1000, 3_000)
		hh, err := store.NewHourHistogram(h, "transaction", hist)
		if err != nil {
			t.Fatal(err)
		}
		r.Hourly = append(r.Hourly, hh)
		hs = append(hs, hist)
	}
	// Another type's hours are not the drift type's.
	other := hdrhistogram.New(1, 3_600_000_000, 3)
	_ = other.RecordValue(9_000_000)
	hh, _ := store.NewHourHistogram(0, "other", other)
	r.Hourly = append(r.Hourly, hh)
	return hs
}

// TestHourlyP99FromHistograms: a run with hourly histograms gets each
// hour's own p50/p95/p99 from them (table, trend, last/first, JSON), and the
// page says so; without them (a run stored before they were kept) the p99 is
// the interval-p99 estimate, labelled "estimated from interval p99s" in the
// summary, on the chart and in the JSON.
func TestHourlyP99FromHistograms(t *testing.T) {
	const hours = 3
	r := weekRun(hours)
	hists := withHourly(t, r, hours)
	lr := longRunView(r)
	if lr.P99Source != P99FromHistograms {
		t.Fatalf("p99 source %q, want %q", lr.P99Source, P99FromHistograms)
	}
	for h, hist := range hists {
		row := lr.Hours[h]
		if row.P99 != float64(hist.ValueAtPercentile(99))/1000 || row.P95 != float64(hist.ValueAtPercentile(95))/1000 ||
			row.P50 != float64(hist.ValueAtPercentile(50))/1000 {
			t.Errorf("hour %d: p50/p95/p99 %v/%v/%v ms, the hour's histogram says %v/%v/%v µs", h, row.P50, row.P95, row.P99,
				hist.ValueAtPercentile(50), hist.ValueAtPercentile(95), hist.ValueAtPercentile(99))
		}
		if !near(row.P99, float64(20+h), 0.05) {
			t.Errorf("hour %d: p99 %v ms, want about %d (not the interval estimate %v)", h, row.P99, 20+h, 5+0.01*float64(h))
		}
	}
	if !near(lr.P99.PerHour, 1, 0.05) || !near(lr.P99.LastOverFirst, 22.0/20, 0.005) {
		t.Errorf("p99 trend %+v, want about +1 ms per hour and last/first 1.1", lr.P99)
	}
	var j bytes.Buffer
	if err := JSON(&j, r); err != nil {
		t.Fatal(err)
	}
	if s := j.String(); !strings.Contains(s, `"p99_source": "hourly histograms"`) || !strings.Contains(s, `"p95_ms"`) || !strings.Contains(s, `"p50_ms"`) {
		t.Errorf("the JSON lacks the hourly percentiles or their source")
	}
	var b bytes.Buffer
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); strings.Contains(page, P99Estimated) || !strings.Contains(page, "the hour&#39;s own percentile") {
		t.Error("the report of a run with hourly histograms does not say its p99 is the hour's own")
	}

	old := weekRun(hours)
	lr = longRunView(old)
	if lr.P99Source != P99Estimated || !near(lr.Hours[1].P99, 5.01, 1e-9) {
		t.Errorf("a run without hourly histograms: source %q, hour 1 p99 %v ms; want the estimate 5.01", lr.P99Source, lr.Hours[1].P99)
	}
	b.Reset()
	if err := HTML(&b, old); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, P99Estimated); n < 2 {
		t.Errorf("the report of an old run says %q %d times, want it in the summary and on the p99 chart", P99Estimated, n)
	}
	j.Reset()
	if err := JSON(&j, old); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(j.String(), `"p99_source": "estimated from interval p99s"`) || strings.Contains(j.String(), `"p95_ms"`) {
		t.Error("the JSON of an old run does not label its hourly p99 as estimated, or claims hourly p95s")
	}
}
