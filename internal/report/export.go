package report

import (
	"encoding/csv"
	"io"
	"strconv"
	"time"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/secret"
	"github.com/pgoltp/pgoltp/internal/store"
)

// Export is the JSON form of a run: everything stored, with histograms
// summarized as percentiles (the exact histograms stay in the store).
type Export struct {
	ID        string       `json:"id"`
	Workload  string       `json:"workload"`
	Title     string       `json:"title"`
	Status    store.Status `json:"status"`
	StartedAt time.Time    `json:"started_at"`
	EndedAt   time.Time    `json:"ended_at"`
	Seconds   float64      `json:"duration_s"`
	// The measured interval, when the run had a ramp-up or drain its figures exclude.
	MeasureStart time.Time      `json:"measure_start,omitzero"`
	MeasureEnd   time.Time      `json:"measure_end,omitzero"`
	Params       []store.KV     `json:"params"`
	Headline     []store.Figure `json:"headline"`
	Latency      []LatencyRow   `json:"latency"`
	// Statements are a script run's per-statement mean latencies (pgbench -r).
	Statements []StatementRow   `json:"statements,omitempty"`
	Series     []store.Interval `json:"series"`
	Notes      []string         `json:"notes,omitempty"`
	Collected  *ExportSamples   `json:"collected,omitempty"`
	// LongRun is the per-hour drift view, for runs of LongRunPanelsFrom or more.
	LongRun *LongRun `json:"long_run,omitempty"`
}

// ExportSamples is what the collectors saw, with times as seconds since the
// run started (the same axis as Series).
type ExportSamples struct {
	Points     []ExportPoint       `json:"points"`
	Events     []ExportEvent       `json:"events"`
	Waits      []collect.Wait      `json:"waits"`
	Statements []collect.Statement `json:"statements"`
	Tables     []collect.Table     `json:"tables"`
	Settings   []collect.Setting   `json:"settings"`
	Facts      []collect.Fact      `json:"facts"`
	Cost       ExportCost          `json:"cost"`
	Warnings   []string            `json:"warnings,omitempty"`
}

// ExportPoint is one sampled value.
type ExportPoint struct {
	T      float64 `json:"t"`
	Metric string  `json:"metric"`
	Key    string  `json:"key,omitempty"`
	Value  float64 `json:"value"`
}

// ExportEvent is one marked moment.
type ExportEvent struct {
	T      float64 `json:"t"`
	Kind   string  `json:"kind"`
	Detail string  `json:"detail"`
}

// ExportCost is the collectors' own cost.
type ExportCost struct {
	Ticks         int     `json:"ticks"`
	TickCPUms     float64 `json:"tick_cpu_ms"`
	BackendCPUms  float64 `json:"backend_cpu_ms"`
	SnapshotCPUms float64 `json:"snapshot_cpu_ms"`
	PercentOfCore float64 `json:"percent_of_core"`
}

// NewExport builds the JSON form of r.
func NewExport(r *store.Run) *Export {
	r = redacted(r)
	e := &Export{ID: r.ID, Workload: r.Workload, Title: r.Title, Status: r.Status, StartedAt: r.StartedAt, EndedAt: r.EndedAt,
		Seconds: r.Duration().Seconds(), MeasureStart: r.MeasureStart, MeasureEnd: r.MeasureEnd, Params: r.Params, Headline: r.Headline, Latency: latencyRows(r), Series: r.Series, Notes: r.Notes,
		LongRun: longRunView(r)}
	e.Headline, e.Statements = splitStatements(r.Headline)
	if s := r.Samples; s != nil {
		x := &ExportSamples{Waits: s.Waits, Statements: s.Statements, Tables: s.Tables, Settings: s.Settings, Facts: s.Facts, Warnings: s.Warnings,
			Cost: ExportCost{Ticks: s.Cost.Ticks, TickCPUms: ms(s.Cost.TickCPU), BackendCPUms: ms(s.Cost.BackendCPU), SnapshotCPUms: ms(s.Cost.SnapshotCPU), PercentOfCore: s.Cost.PercentOfCore()}}
		for _, p := range s.Points {
			x.Points = append(x.Points, ExportPoint{T: p.At.Sub(r.StartedAt).Seconds(), Metric: p.Metric, Key: p.Key, Value: p.Value})
		}
		for _, ev := range s.Events {
			x.Events = append(x.Events, ExportEvent{T: ev.At.Sub(r.StartedAt).Seconds(), Kind: ev.Kind, Detail: ev.Detail})
		}
		e.Collected = x
	}
	return e
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// JSON writes the run as indented JSON.
func JSON(w io.Writer, r *store.Run) error {
	return secret.WriteJSON(w, NewExport(r))
}

// CSV writes the run's time series in long form, one value per row, so any
// spreadsheet or dataframe can pivot it:
//
//	source,t,metric,key,value
//	driver,12,txn_per_s,new_order,41
//	collector,12.003,os.cpu.user_pct,,37.5
//
// Driver rows carry, per transaction type, txn_per_s, errors_per_s and the
// p50/p95/p99/max latency in milliseconds; collector rows every sampled metric.
func CSV(w io.Writer, r *store.Run) error {
	cw := csv.NewWriter(w)
	row := func(source string, t float64, metric, key string, v float64) {
		_ = cw.Write([]string{source, strconv.FormatFloat(t, 'f', -1, 64), metric, key, strconv.FormatFloat(v, 'g', -1, 64)})
	}
	_ = cw.Write([]string{"source", "t", "metric", "key", "value"})
	for _, iv := range r.Series {
		t := float64(iv.Second)
		length := iv.Length
		if length <= 0 {
			length = 1
		}
		row("driver", t, "txn_per_s", iv.Type, iv.Rate())
		row("driver", t, "errors_per_s", iv.Type, float64(iv.Errors)/length)
		if iv.Count > 0 && iv.P50 > 0 {
			row("driver", t, "p50_ms", iv.Type, iv.P50/1000)
			row("driver", t, "p95_ms", iv.Type, iv.P95/1000)
			row("driver", t, "p99_ms", iv.Type, iv.P99/1000)
			row("driver", t, "max_ms", iv.Type, iv.Max/1000)
		}
	}
	if s := r.Samples; s != nil {
		for _, p := range s.Points {
			row("collector", round(p.At.Sub(r.StartedAt).Seconds(), 3), p.Metric, p.Key, p.Value)
		}
	}
	cw.Flush()
	return cw.Error()
}
