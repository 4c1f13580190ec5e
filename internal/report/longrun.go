package report

import (
	"math"
	"sort"
	"time"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/store"
)

// LongRunPanelsFrom is the shortest run that gets the per-hour panels (drift
// of throughput and p99, WAL per transaction, checkpoints and autovacuum
// runs per hour): with fewer full hours a trend is two points or one.
const LongRunPanelsFrom = 2 * time.Hour

// Where the hourly p99 comes from (LongRun.P99Source).
const (
	P99FromHistograms = "hourly histograms"
	P99Estimated      = "estimated from interval p99s"
)

// HourRow is one full hour of a long run.
type HourRow struct {
	Hour int `json:"hour"` // from 0
	// TPS is the drift type's completions per second over the hour.
	TPS float64 `json:"tps"`
	// P99 is the drift type's p99 latency over the hour, in ms: the hour's
	// own percentile, from its merged histogram (LongRun.P99Source is
	// P99FromHistograms); for runs stored before hourly histograms were kept,
	// the count-weighted mean of the per-interval p99s (P99Estimated), which
	// understates a tail that a few intervals carry.
	P99 float64 `json:"p99_ms"`
	// P50 and P95 come with the hourly histograms only.
	P50 float64 `json:"p50_ms,omitempty"`
	P95 float64 `json:"p95_ms,omitempty"`
	// WALPerTxn is WAL bytes per transaction the server committed in the
	// hour (pg_stat_wal or the WAL position, over pg_stat_database's
	// commits); 0 when either was not sampled.
	WALPerTxn    float64 `json:"wal_bytes_per_txn"`
	Checkpoints  int     `json:"checkpoints"`
	Autovacuums  int64   `json:"autovacuums"`
	Autoanalyzes int64   `json:"autoanalyzes"`
}

// Trend is a least-squares line through the hourly values, and the last
// full hour against the first.
type Trend struct {
	PerHour   float64 `json:"per_hour"`  // slope, in the value's unit per hour
	Intercept float64 `json:"intercept"` // the line's value at hour 0 (its middle)
	// PerHourPct is the slope as a share of the mean hourly value.
	PerHourPct float64 `json:"per_hour_pct"`
	// LastOverFirst is the last full hour's value over the first's.
	LastOverFirst float64 `json:"last_over_first"`
}

// TableVacuums is one table's autovacuum and autoanalyze runs over the run.
type TableVacuums struct {
	Table        string `json:"table"`
	Autovacuums  int64  `json:"autovacuums"`
	Autoanalyzes int64  `json:"autoanalyzes"`
}

// LongRun is the long-run view of a run: per-hour drift, growth and
// maintenance.
type LongRun struct {
	DriftType        string         `json:"drift_type"` // the transaction type the hourly figures follow
	Hours            []HourRow      `json:"hours"`
	Throughput       Trend          `json:"throughput_trend"`
	P99              Trend          `json:"p99_trend"`
	P99Source        string         `json:"p99_source"` // P99FromHistograms or P99Estimated
	Tables           []TableVacuums `json:"tables,omitempty"`
	LongestXact      float64        `json:"longest_transaction_s"` // the oldest open client transaction seen
	LongestXactAt    float64        `json:"longest_transaction_at_s,omitempty"`
	Checkpoints      int            `json:"checkpoints"`
	charts           []*timeChart
	hasMaintenance   bool
	hasWALPerTxn     bool
	hasLongestSample bool
}

// Charts are the per-hour charts, for the template.
func (lr *LongRun) Charts() []*timeChart { return lr.charts }

// longRunView builds the long-run view of r, or nil when the run is shorter
// than LongRunPanelsFrom or has no per-interval series.
func longRunView(r *store.Run) *LongRun {
	if r.Duration() < LongRunPanelsFrom || len(r.Series) == 0 {
		return nil
	}
	full := int(r.Duration() / time.Hour)
	lr := &LongRun{DriftType: driftType(r.Series), Hours: make([]HourRow, full)}
	type acc struct {
		count                int64
		p99Weighted, weights float64
	}
	hours := make([]acc, full)
	for _, iv := range r.Series {
		h := iv.Second / 3600
		if iv.Type != lr.DriftType || iv.Second < 0 || h >= full {
			continue
		}
		hours[h].count += iv.Count
		if iv.P99 > 0 && iv.Count > 0 {
			hours[h].p99Weighted += iv.P99 / 1000 * float64(iv.Count)
			hours[h].weights += float64(iv.Count)
		}
	}
	for h := range lr.Hours {
		row := &lr.Hours[h]
		row.Hour, row.TPS = h, float64(hours[h].count)/3600
	}
	if !lr.hourlyPercentiles(r.Hourly) {
		lr.P99Source = P99Estimated
		for h := range lr.Hours {
			if hours[h].weights > 0 {
				lr.Hours[h].P99 = hours[h].p99Weighted / hours[h].weights
			}
		}
	}
	var tps, p99 []float64
	for _, row := range lr.Hours {
		tps, p99 = append(tps, row.TPS), append(p99, row.P99)
	}
	lr.Throughput, lr.P99 = trendOf(tps), trendOf(p99)
	lr.addSamples(r, full)
	lr.buildCharts(r.Samples)
	return lr
}

// hourlyPercentiles sets each full hour's p50/p95/p99 from the drift type's
// hourly histogram, and says whether the run has them (runs stored before
// the recorder kept hourly histograms have none; an hour in which the drift
// type never completed has none either, and stays 0 as with the estimate).
// One histogram is decoded at a time: a week of them at once is large.
func (lr *LongRun) hourlyPercentiles(hourly []store.HourHistogram) bool {
	found := false
	for _, hh := range hourly {
		if hh.Type != lr.DriftType || hh.Hour < 0 || hh.Hour >= len(lr.Hours) {
			continue
		}
		h, err := hh.Histogram()
		if err != nil {
			return false // damaged: the estimate, labelled as such, is safer
		}
		found = true
		if h.TotalCount() == 0 {
			continue
		}
		v := h.ValueAtPercentilesSlice([]float64{50, 95, 99})
		row := &lr.Hours[hh.Hour]
		row.P50, row.P95, row.P99 = float64(v[0])/1000, float64(v[1])/1000, float64(v[2])/1000
	}
	if found {
		lr.P99Source = P99FromHistograms
	}
	return found
}

// P99Note says in words where the hourly p99 comes from, for the page.
func (lr *LongRun) P99Note() string {
	if lr.P99Source == P99Estimated {
		return "p99 per hour is estimated from interval p99s (their count-weighted mean, which understates a tail carried by a few intervals): this run was stored before pgoltp kept hourly histograms"
	}
	return "p99 per hour is the hour's own percentile, from the HDR histogram of all its transactions"
}

// driftType is the transaction type the hourly figures follow: New-Order
// for TPC-C (tpmC is its throughput), else the type with the most
// completions.
func driftType(series []store.Interval) string {
	counts := map[string]int64{}
	for _, iv := range series {
		counts[iv.Type] += iv.Count
	}
	if _, ok := counts["new_order"]; ok {
		return "new_order"
	}
	best := ""
	for t, n := range counts {
		if best == "" || n > counts[best] || (n == counts[best] && t < best) {
			best = t
		}
	}
	return best
}

// trendOf fits y = a + b·hour by least squares over the hours.
func trendOf(y []float64) Trend {
	n := float64(len(y))
	if n == 0 {
		return Trend{}
	}
	var sx, sy, sxx, sxy float64
	for i, v := range y {
		x := float64(i)
		sx, sy, sxx, sxy = sx+x, sy+v, sxx+x*x, sxy+x*v
	}
	t := Trend{Intercept: sy / n}
	if d := n*sxx - sx*sx; d > 0 {
		t.PerHour = (n*sxy - sx*sy) / d
		t.Intercept = (sy - t.PerHour*sx) / n
	}
	if mean := sy / n; mean != 0 {
		t.PerHourPct = 100 * t.PerHour / mean
	}
	if y[0] != 0 {
		t.LastOverFirst = y[len(y)-1] / y[0]
	}
	return t
}

// addSamples fills what the collectors saw per hour: WAL per transaction,
// checkpoints, autovacuum runs, and the longest transaction.
func (lr *LongRun) addSamples(r *store.Run, full int) {
	s := r.Samples
	if s == nil {
		return
	}
	hourOf := func(t time.Time) int { return int(t.Sub(r.StartedAt) / time.Hour) }
	walSum, walN := make([]float64, full), make([]float64, full)
	comSum, comN := make([]float64, full), make([]float64, full)
	mc := maintenanceCounters{hours: full, lastIn: map[counter][]float64{}, first: map[counter]float64{}, last: map[counter]float64{}}
	for _, p := range s.Points {
		h := hourOf(p.At)
		switch p.Metric {
		case "pg.wal.mb_per_s":
			if h >= 0 && h < full {
				walSum[h], walN[h] = walSum[h]+p.Value*1e6, walN[h]+1
			}
		case "pg.xact.commits_per_s":
			if h >= 0 && h < full {
				comSum[h], comN[h] = comSum[h]+p.Value, comN[h]+1
			}
		case collect.MetricAutovacuums, collect.MetricAutoanalyzes:
			mc.add(counter{p.Metric, p.Key}, h, p.Value)
			lr.hasMaintenance = true
		case collect.MetricLongestXact:
			lr.hasLongestSample = true
			if p.Value > lr.LongestXact {
				lr.LongestXact, lr.LongestXactAt = p.Value, p.At.Sub(r.StartedAt).Seconds()
			}
		}
	}
	for h := range lr.Hours {
		if walN[h] > 0 && comN[h] > 0 && comSum[h] > 0 {
			lr.Hours[h].WALPerTxn = (walSum[h] / walN[h]) / (comSum[h] / comN[h])
			lr.hasWALPerTxn = true
		}
	}
	for _, e := range s.Events {
		if e.Kind != "checkpoint" {
			continue
		}
		lr.Checkpoints++
		if h := hourOf(e.At); h >= 0 && h < full {
			lr.Hours[h].Checkpoints++
		}
	}
	mc.perHour(lr.Hours)
	lr.Tables = append(lr.Tables, mc.tables()...)
}

// counter is one cumulative per-table maintenance counter.
type counter struct{ metric, table string }

// maintenanceCounters gathers the autovacuum and autoanalyze counters: the
// last reading of each table per hour, and the first and last of the run.
type maintenanceCounters struct {
	hours       int
	lastIn      map[counter][]float64
	first, last map[counter]float64
}

func (mc *maintenanceCounters) add(k counter, hour int, v float64) {
	if _, ok := mc.first[k]; !ok {
		mc.first[k] = v
	}
	mc.last[k] = v
	if mc.lastIn[k] == nil {
		mc.lastIn[k] = make([]float64, mc.hours)
		for i := range mc.lastIn[k] {
			mc.lastIn[k][i] = math.NaN()
		}
	}
	if hour >= 0 && hour < mc.hours {
		mc.lastIn[k][hour] = v
	}
}

// perHour adds the runs per hour: the rise of each table's counter since the
// previous hour's last reading (a counter that went down was reset: no runs).
func (mc *maintenanceCounters) perHour(hours []HourRow) {
	for k, byHour := range mc.lastIn {
		prev := mc.first[k]
		for h, v := range byHour {
			if math.IsNaN(v) {
				continue
			}
			n := int64(max(0, v-prev))
			prev = v
			if k.metric == collect.MetricAutovacuums {
				hours[h].Autovacuums += n
			} else {
				hours[h].Autoanalyzes += n
			}
		}
	}
}

// tables are the runs per table over the whole run, busiest first.
func (mc *maintenanceCounters) tables() []TableVacuums {
	byName := map[string]*TableVacuums{}
	for k, v := range mc.last {
		t := byName[k.table]
		if t == nil {
			t = &TableVacuums{Table: k.table}
			byName[k.table] = t
		}
		n := int64(max(0, v-mc.first[k]))
		if k.metric == collect.MetricAutovacuums {
			t.Autovacuums = n
		} else {
			t.Autoanalyzes = n
		}
	}
	var out []TableVacuums
	for _, t := range byName {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Autovacuums+a.Autoanalyzes != b.Autovacuums+b.Autoanalyzes {
			return a.Autovacuums+a.Autoanalyzes > b.Autovacuums+b.Autoanalyzes
		}
		return a.Table < b.Table
	})
	return out
}

// buildCharts draws the hourly figures at each hour's middle on the run's
// time axis, with the trend line dashed.
func (lr *LongRun) buildCharts(s *collect.Samples) {
	mid := func(h int) float64 { return float64(h)*3600 + 1800 }
	p99Title := "p99 latency per hour (" + lr.DriftType + ")"
	if lr.P99Source == P99Estimated {
		p99Title = "p99 latency per hour (" + lr.DriftType + ", " + P99Estimated + ")"
	}
	hourly := func(id, title, unit, name string, value func(HourRow) float64, trend *Trend) *timeChart {
		c := &timeChart{ID: id, Title: title, Unit: unit}
		l := &line{Name: name, Color: palette[0]}
		for _, h := range lr.Hours {
			l.X, l.Y = append(l.X, mid(h.Hour)), append(l.Y, value(h))
		}
		c.Lines = append(c.Lines, l)
		if trend != nil {
			tl := &line{Name: "least-squares trend", Color: palette[5], Dashed: true}
			for _, h := range []int{0, len(lr.Hours) - 1} {
				tl.X, tl.Y = append(tl.X, mid(h)), append(tl.Y, trend.Intercept+trend.PerHour*float64(h))
			}
			c.Lines = append(c.Lines, tl)
		}
		return c
	}
	lr.charts = append(lr.charts,
		hourly("lr-tps", "Throughput per hour ("+lr.DriftType+")", "txn/s", "per hour", func(h HourRow) float64 { return h.TPS }, &lr.Throughput),
		hourly("lr-p99", p99Title, "ms", "p99", func(h HourRow) float64 { return h.P99 }, &lr.P99))
	if lr.hasWALPerTxn {
		lr.charts = append(lr.charts, hourly("lr-wal", "WAL per transaction, per hour", "bytes", "WAL / commit", func(h HourRow) float64 { return h.WALPerTxn }, nil))
	}
	if s != nil {
		lr.charts = append(lr.charts, hourly("lr-ckpt", "Checkpoints per hour", "checkpoints", "checkpoints", func(h HourRow) float64 { return float64(h.Checkpoints) }, nil))
	}
	if lr.hasMaintenance {
		c := hourly("lr-vac", "Autovacuum and autoanalyze runs per hour (all tables)", "runs", "autovacuum", func(h HourRow) float64 { return float64(h.Autovacuums) }, nil)
		an := hourly("", "", "", "autoanalyze", func(h HourRow) float64 { return float64(h.Autoanalyzes) }, nil).Lines[0]
		an.Color = palette[1]
		c.Lines = append(c.Lines, an)
		lr.charts = append(lr.charts, c)
	}
}

// growthCharts are the sizes, bloat and longest transaction over time, from
// the readings the collectors take every minute (and every --bloat-every);
// a chart needs two readings of a series, so runs of a minute or less have
// none.
func growthCharts(start time.Time, s *collect.Samples) []*timeChart {
	if s == nil {
		return nil
	}
	specs := []struct {
		id, title, unit, metric string
		scale                   float64
	}{
		{"g-db", "Database size", "MB", collect.MetricDatabaseSize, 1e-6},
		{"g-table", "Table size (heap, TOAST, maps)", "MB", collect.MetricTableSize, 1e-6},
		{"g-index", "Index size per table", "MB", collect.MetricIndexSize, 1e-6},
		{"g-bloat", "Bloat (pgstattuple_approx: free + dead)", "%", collect.MetricBloat, 1},
		{"g-xact", "Longest open transaction", "s", collect.MetricLongestXact, 1},
	}
	var out []*timeChart
	for _, sp := range specs {
		byKey := map[string]*line{}
		var keys []string
		for _, p := range s.Points {
			if p.Metric != sp.metric {
				continue
			}
			l := byKey[p.Key]
			if l == nil {
				name := p.Key
				if name == "" {
					name = sp.title
				}
				l = &line{Name: name}
				byKey[p.Key] = l
				keys = append(keys, p.Key)
			}
			l.X, l.Y = append(l.X, p.At.Sub(start).Seconds()), append(l.Y, p.Value*sp.scale)
		}
		c := &timeChart{ID: sp.id, Title: sp.title, Unit: sp.unit}
		for _, k := range keys {
			if len(byKey[k].X) >= 2 {
				c.Lines = append(c.Lines, byKey[k])
			}
		}
		if len(c.Lines) == 0 {
			continue
		}
		sort.SliceStable(c.Lines, func(i, j int) bool { return lastOf(c.Lines[i].Y) > lastOf(c.Lines[j].Y) })
		if len(c.Lines) > 10 {
			c.Note = "the 10 largest at the end are drawn"
			c.Lines = c.Lines[:10]
		}
		for i, l := range c.Lines {
			l.Color = palette[i%len(palette)]
		}
		out = append(out, c)
	}
	return out
}

func lastOf(v []float64) float64 { return v[len(v)-1] }
