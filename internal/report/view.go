package report

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// LatencyRow is one transaction type's whole-run latency, in milliseconds.
type LatencyRow struct {
	Type  string  `json:"type"`
	Count int64   `json:"count"`
	Mean  float64 `json:"mean_ms"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P95   float64 `json:"p95_ms"`
	P99   float64 `json:"p99_ms"`
	P999  float64 `json:"p99_9_ms"`
	Max   float64 `json:"max_ms"`
}

// latencyRows summarizes each histogram of a run, types in name order.
func latencyRows(r *store.Run) []LatencyRow {
	types := make([]string, 0, len(r.Latency))
	for t := range r.Latency {
		types = append(types, t)
	}
	sort.Strings(types)
	var out []LatencyRow
	ms := func(v int64) float64 { return float64(v) / 1000 }
	for _, t := range types {
		if r.Latency[t] == nil {
			continue
		}
		h := hdrhistogram.Import(r.Latency[t])
		if h.TotalCount() == 0 {
			continue
		}
		v := h.ValueAtPercentilesSlice([]float64{50, 90, 95, 99, 99.9})
		out = append(out, LatencyRow{Type: t, Count: h.TotalCount(), Mean: h.Mean() / 1000,
			P50: ms(v[0]), P90: ms(v[1]), P95: ms(v[2]), P99: ms(v[3]), P999: ms(v[4]), Max: ms(h.Max())})
	}
	return out
}

// StatementRow is one statement of a script run: its mean latency over the
// run (pgbench -r), in milliseconds.
type StatementRow struct {
	Script  string  `json:"script"`
	Command string  `json:"command"`
	Mean    float64 `json:"mean_ms"`
}

// splitStatements separates a run's per-statement figures
// (workload.StatementName) from its headline figures.
func splitStatements(figs []store.Figure) ([]store.Figure, []StatementRow) {
	var headline []store.Figure
	var rows []StatementRow
	for _, f := range figs {
		rest, ok := strings.CutPrefix(f.Name, workload.StatementFigure)
		if !ok {
			headline = append(headline, f)
			continue
		}
		script, command, _ := strings.Cut(rest, " · ")
		rows = append(rows, StatementRow{Script: script, Command: command, Mean: f.Value})
	}
	return headline, rows
}

// line is one series of a time chart: x in seconds since the run started.
type line struct {
	Name   string    `json:"name"`
	Color  string    `json:"color"`
	Dashed bool      `json:"dashed,omitempty"`
	Dots   bool      `json:"-"` // a dot on every point (few, separate measurements)
	X      []float64 `json:"x"`
	Y      []float64 `json:"y"`
}

// timeChart is one chart on the run's common time axis.
type timeChart struct {
	ID    string  `json:"id"`
	Title string  `json:"title"`
	Unit  string  `json:"unit"`
	Lines []*line `json:"lines"`
	Note  string  `json:"-"`
	// Counts labels the x axis with plain numbers (trials) instead of a clock.
	Counts bool `json:"-"`
}

// section groups charts under a heading.
type section struct {
	Title  string
	Charts []*timeChart
}

// chartSpec says how to build one chart from collected points: which metrics,
// and how to name a series from its metric and key.
type chartSpec struct {
	title, unit string
	metrics     []string          // exact metric names
	names       map[string]string // metric -> series name (key appended when present)
}

// collectorSections are the charts drawn from collector points, in order.
var collectorSections = []struct {
	title string
	specs []chartSpec
}{
	{"CPU and memory", []chartSpec{
		{"CPU (% of all cores)", "%", []string{"os.cpu.user_pct", "os.cpu.system_pct", "os.cpu.iowait_pct", "os.cpu.steal_pct"},
			map[string]string{"os.cpu.user_pct": "user", "os.cpu.system_pct": "system", "os.cpu.iowait_pct": "iowait", "os.cpu.steal_pct": "steal"}},
		{"Pressure stall (% of time)", "%", []string{"os.psi.cpu_some_pct", "os.psi.io_some_pct", "os.psi.io_full_pct", "os.psi.memory_some_pct"},
			map[string]string{"os.psi.cpu_some_pct": "cpu some", "os.psi.io_some_pct": "io some", "os.psi.io_full_pct": "io full", "os.psi.memory_some_pct": "memory some"}},
		{"Run queue", "tasks", []string{"os.run_queue", "os.blocked"}, map[string]string{"os.run_queue": "runnable", "os.blocked": "blocked on I/O"}},
		{"Dirty and writeback memory", "MiB", []string{"os.mem.dirty_mb", "os.mem.writeback_mb"}, map[string]string{"os.mem.dirty_mb": "dirty", "os.mem.writeback_mb": "writeback"}},
		{"Context switches", "/s", []string{"os.context_switches_per_s"}, map[string]string{"os.context_switches_per_s": "switches"}},
	}},
	{"Disk", []chartSpec{
		{"Disk IOPS", "IO/s", []string{"os.disk.read_iops", "os.disk.write_iops"}, map[string]string{"os.disk.read_iops": "read", "os.disk.write_iops": "write"}},
		{"Disk throughput", "MB/s", []string{"os.disk.read_mb_per_s", "os.disk.write_mb_per_s"}, map[string]string{"os.disk.read_mb_per_s": "read", "os.disk.write_mb_per_s": "write"}},
		{"Disk await", "ms", []string{"os.disk.await_ms"}, map[string]string{"os.disk.await_ms": "await"}},
		{"Disk utilisation", "%", []string{"os.disk.util_pct"}, map[string]string{"os.disk.util_pct": "busy"}},
	}},
	{"WAL, checkpoints and buffers", []chartSpec{
		{"WAL written", "MB/s", []string{"pg.wal.mb_per_s"}, map[string]string{"pg.wal.mb_per_s": "WAL"}},
		{"Full-page images", "/s", []string{"pg.wal.fpi_per_s"}, map[string]string{"pg.wal.fpi_per_s": "full-page images"}},
		{"Buffers written", "buffers/s", []string{"pg.buffers.checkpointer_per_s", "pg.buffers.bgwriter_per_s", "pg.buffers.backend_per_s"},
			map[string]string{"pg.buffers.checkpointer_per_s": "checkpointer", "pg.buffers.bgwriter_per_s": "bgwriter", "pg.buffers.backend_per_s": "backends"}},
		{"I/O by process type (pg_stat_io)", "ops/s", []string{"pg.io.writes_per_s", "pg.io.fsyncs_per_s"}, map[string]string{"pg.io.writes_per_s": "writes", "pg.io.fsyncs_per_s": "fsyncs"}},
	}},
	{"Database activity", []chartSpec{
		{"Transactions seen by the server", "/s", []string{"pg.xact.commits_per_s", "pg.xact.rollbacks_per_s"}, map[string]string{"pg.xact.commits_per_s": "commits", "pg.xact.rollbacks_per_s": "rollbacks"}},
		{"Buffer cache hit ratio", "%", []string{"pg.blks.hit_ratio_pct"}, map[string]string{"pg.blks.hit_ratio_pct": "hit ratio"}},
		{"Blocks read per transaction from outside shared buffers (OS cache or disk)", "blocks", []string{"pg.blks.read_per_xact"}, map[string]string{"pg.blks.read_per_xact": "reads"}},
		{"Sessions", "sessions", []string{"pg.sessions.active", "pg.sessions.idle_in_xact", "pg.sessions.total"},
			map[string]string{"pg.sessions.active": "active", "pg.sessions.idle_in_xact": "idle in transaction", "pg.sessions.total": "connected"}},
		{"Dead tuples", "tuples", []string{"pg.table.dead_tuples"}, map[string]string{"pg.table.dead_tuples": ""}},
		{"Temporary files", "MB/s", []string{"pg.temp.mb_per_s"}, map[string]string{"pg.temp.mb_per_s": "temp"}},
	}},
	{"Replication and pooler", []chartSpec{
		{"Standby lag (pg_stat_replication)", "s", []string{"pg.replication.write_lag_s", "pg.replication.flush_lag_s", "pg.replication.replay_lag_s"},
			map[string]string{"pg.replication.write_lag_s": "write", "pg.replication.flush_lag_s": "flush", "pg.replication.replay_lag_s": "replay"}},
		{"Standby replay behind the primary", "MB", []string{"pg.replication.replay_lag_mb"}, map[string]string{"pg.replication.replay_lag_mb": ""}},
		{"WAL senders (pg_stat_replication; 1 = yes)", "state", []string{"pg.replication.streaming", "pg.replication.synchronous"},
			map[string]string{"pg.replication.streaming": "streaming", "pg.replication.synchronous": "synchronous"}},
		{"WAL receivers (each standby's pg_stat_wal_receiver; 1 = streaming)", "state", []string{"standby.receiver_streaming"},
			map[string]string{"standby.receiver_streaming": "streaming"}},
		{"WAL receivers' last message, sent to received", "ms", []string{"standby.receiver_message_ms"}, map[string]string{"standby.receiver_message_ms": ""}},
		{"WAL received and replayed by each standby", "MB/s", []string{"standby.received_mb_per_s", "standby.replayed_mb_per_s"},
			map[string]string{"standby.received_mb_per_s": "received", "standby.replayed_mb_per_s": "replayed"}},
		{"Standby replay delay (its own now() - last replayed commit, while WAL waits)", "s", []string{"standby.replay_delay_s"}, map[string]string{"standby.replay_delay_s": ""}},
		{"WAL received but not yet replayed, on each standby", "MB", []string{"standby.replay_gap_mb"}, map[string]string{"standby.replay_gap_mb": ""}},
		{"Recovery conflicts on standbys (pg_stat_database_conflicts)", "/s", standbyConflictMetrics, standbyConflictNames()},
		{"Pooler clients and servers (SHOW POOLS)", "connections", []string{"pooler.clients_active", "pooler.clients_waiting", "pooler.servers_active", "pooler.servers_idle"},
			map[string]string{"pooler.clients_active": "clients active", "pooler.clients_waiting": "clients waiting", "pooler.servers_active": "servers active", "pooler.servers_idle": "servers idle"}},
		{"Pooler throughput (SHOW STATS)", "/s", []string{"pooler.xacts_per_s", "pooler.queries_per_s"}, map[string]string{"pooler.xacts_per_s": "transactions", "pooler.queries_per_s": "queries"}},
		{"Pooler clients waiting for a server (mean over each sample)", "clients", []string{"pooler.clients_waiting_mean"}, map[string]string{"pooler.clients_waiting_mean": "waiting"}},
	}},
	{"Network", []chartSpec{
		{"Network", "MB/s", []string{"os.net.rx_mb_per_s", "os.net.tx_mb_per_s"}, map[string]string{"os.net.rx_mb_per_s": "rx", "os.net.tx_mb_per_s": "tx"}},
	}},
}

// standbyConflictMetrics are the rates of each kind of recovery conflict
// (collect's standby sampler), one series per standby and kind.
var standbyConflictMetrics = []string{"standby.conflicts.tablespace_per_s", "standby.conflicts.lock_per_s",
	"standby.conflicts.snapshot_per_s", "standby.conflicts.bufferpin_per_s", "standby.conflicts.deadlock_per_s"}

func standbyConflictNames() map[string]string {
	names := map[string]string{}
	for _, m := range standbyConflictMetrics {
		names[m] = strings.TrimSuffix(strings.TrimPrefix(m, "standby.conflicts."), "_per_s")
	}
	return names
}

// palette is a colour-blind-friendly set (Okabe-Ito, then Tableau).
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000", "#8c564b", "#7f7f7f", "#bcbd22", "#17becf"}

// throughputCharts builds throughput and latency-over-time charts from the
// driver's per-interval series.
func throughputCharts(r *store.Run) []*timeChart {
	if len(r.Series) == 0 {
		return nil
	}
	types := seriesTypes(r.Series)
	tput := &timeChart{ID: "throughput", Title: "Throughput by transaction type", Unit: "txn/s"}
	lat := &timeChart{ID: "latency", Title: "Latency p50 (solid) and p99 (dashed) by type", Unit: "ms"}
	errs := &timeChart{ID: "errors", Title: "Failed transactions", Unit: "/s"}
	var anyLat, anyErr bool
	for i, t := range types {
		color := palette[i%len(palette)]
		tl := &line{Name: t, Color: color}
		p50 := &line{Name: t + " p50", Color: color}
		p99 := &line{Name: t + " p99", Color: color, Dashed: true}
		el := &line{Name: t, Color: color}
		for _, iv := range r.Series {
			if iv.Type != t {
				continue
			}
			x := float64(iv.Second)
			tl.X, tl.Y = append(tl.X, x), append(tl.Y, iv.Rate())
			if iv.Count > 0 && iv.P50 > 0 {
				anyLat = true
				p50.X, p50.Y = append(p50.X, x), append(p50.Y, iv.P50/1000)
				p99.X, p99.Y = append(p99.X, x), append(p99.Y, iv.P99/1000)
			}
			length := iv.Length
			if length <= 0 {
				length = 1
			}
			if iv.Errors > 0 {
				anyErr = true
			}
			el.X, el.Y = append(el.X, x), append(el.Y, float64(iv.Errors)/length)
		}
		tput.Lines = append(tput.Lines, tl)
		lat.Lines = append(lat.Lines, p50, p99)
		errs.Lines = append(errs.Lines, el)
	}
	out := []*timeChart{tput}
	if anyLat {
		out = append(out, lat)
	}
	if anyErr {
		out = append(out, errs)
	}
	return out
}

func seriesTypes(s []store.Interval) []string {
	seen := map[string]bool{}
	var types []string
	for _, iv := range s {
		if !seen[iv.Type] {
			seen[iv.Type] = true
			types = append(types, iv.Type)
		}
	}
	sort.Strings(types)
	return types
}

// collectorCharts builds the collector sections: one chart per spec that has
// data, one series per metric and key, x in seconds since start.
func collectorCharts(s *collect.Samples, start time.Time) []section {
	if s == nil {
		return nil
	}
	type sk struct{ metric, key string }
	byMetric := map[sk]*line{}
	var order []sk
	for _, p := range s.Points {
		k := sk{p.Metric, p.Key}
		l := byMetric[k]
		if l == nil {
			l = &line{}
			byMetric[k] = l
			order = append(order, k)
		}
		l.X = append(l.X, p.At.Sub(start).Seconds())
		l.Y = append(l.Y, p.Value)
	}
	var out []section
	n := 0
	for _, sec := range collectorSections {
		var charts []*timeChart
		for _, spec := range sec.specs {
			n++
			c := &timeChart{ID: fmt.Sprintf("c%d", n), Title: spec.title, Unit: spec.unit}
			for _, m := range spec.metrics {
				var keys []sk
				for _, k := range order {
					if k.metric == m {
						keys = append(keys, k)
					}
				}
				sort.Slice(keys, func(i, j int) bool { return keys[i].key < keys[j].key })
				for _, k := range keys {
					l := byMetric[k]
					if allZero(l.Y) && len(keys) > 1 {
						continue // an idle device or interface says nothing
					}
					name := strings.TrimSpace(k.key + " " + spec.names[m])
					c.Lines = append(c.Lines, &line{Name: name, X: l.X, Y: l.Y})
				}
			}
			if len(c.Lines) == 0 {
				continue
			}
			if len(c.Lines) > 10 {
				c.Note = fmt.Sprintf("%d series; the 10 largest are drawn", len(c.Lines))
				sort.SliceStable(c.Lines, func(i, j int) bool { return sum(c.Lines[i].Y) > sum(c.Lines[j].Y) })
				c.Lines = c.Lines[:10]
			}
			for i, l := range c.Lines {
				l.Color = palette[i%len(palette)]
			}
			charts = append(charts, c)
		}
		if len(charts) > 0 {
			out = append(out, section{Title: sec.title, Charts: charts})
		}
	}
	return out
}

func allZero(v []float64) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

func sum(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t
}

// axisRange is the common x range of every time chart of a run, so that
// moments line up across charts.
func axisRange(charts []*timeChart, duration float64) (float64, float64) {
	lo, hi := 0.0, duration
	for _, c := range charts {
		for _, l := range c.Lines {
			for _, x := range l.X {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
	}
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi
}
