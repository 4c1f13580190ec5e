// Package store keeps benchmark runs: their parameters, headline figures,
// latency histograms, per-second series and everything the collectors saw. It
// writes one SQLite file per lab (results.db) by default, or the same schema in
// a PostgreSQL database. It knows nothing about TPC-C or TPC-B: a run is a
// workload name, ordered parameters, named figures and per-type series.
//
// A run is never half-stored: Begin writes it as "running" in its own
// transaction, samples may be appended in their own transactions while it
// goes, and Finish writes the rest and the final status in one transaction.
// A run still "running" whose process is gone is shown as incomplete.
package store

import (
	"fmt"
	"math"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/collect"
)

// Status is where a run is in its life.
type Status string

// Run statuses.
const (
	Running     Status = "running"     // Begin was called, Finish was not (yet)
	Complete    Status = "complete"    // the run went to its end
	Interrupted Status = "interrupted" // stopped early (Ctrl-C, deadline) but its results are whole
	Failed      Status = "failed"      // the run failed; what it stored is what it saw
	Incomplete  Status = "incomplete"  // shown, never stored: running, but its process is gone
)

// KV is one parameter of a run, kept in the order the workload gave it.
type KV struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Figure is one headline number (tpmC, TPS, efficiency, mean latency...).
type Figure struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// Interval is one second (or whatever the driver's interval is) of one
// transaction type: how many completed, how many failed, and the latency
// percentiles in microseconds (0 when the driver did not measure them).
type Interval struct {
	Second int     `json:"second"`   // start of the interval, seconds since the run's StartedAt
	Length float64 `json:"length_s"` // length of the interval in seconds; 0 means 1
	Type   string  `json:"type"`
	Count  int64   `json:"count"`
	Errors int64   `json:"errors"`
	P50    float64 `json:"p50_us"`
	P95    float64 `json:"p95_us"`
	P99    float64 `json:"p99_us"`
	Max    float64 `json:"max_us"`
}

// Rate is the interval's completions per second.
func (iv Interval) Rate() float64 {
	if iv.Length > 0 {
		return float64(iv.Count) / iv.Length
	}
	return float64(iv.Count)
}

// HourHistogram is the latency histogram (µs) of one transaction type over
// one hour of a run: every interval of the series that starts in seconds
// [3600·Hour, 3600·(Hour+1)) merged, so its percentiles are the hour's own.
// It stays encoded (a few KB) until read: a week of them decoded would take
// hundreds of MB.
type HourHistogram struct {
	Hour    int    `json:"hour"`
	Type    string `json:"type"`
	Encoded []byte `json:"-"` // HdrHistogram's compressed, base64 form
}

// NewHourHistogram encodes h as the histogram of typ in hour.
func NewHourHistogram(hour int, typ string, h *hdrhistogram.Histogram) (HourHistogram, error) {
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return HourHistogram{}, fmt.Errorf("encoding the %s histogram of hour %d: %w", typ, hour, err)
	}
	return HourHistogram{Hour: hour, Type: typ, Encoded: enc}, nil
}

// Histogram decodes the histogram.
func (h HourHistogram) Histogram() (*hdrhistogram.Histogram, error) {
	d, err := hdrhistogram.Decode(h.Encoded)
	if err != nil {
		return nil, fmt.Errorf("decoding the %s histogram of hour %d: %w", h.Type, h.Hour, err)
	}
	return d, nil
}

// Run is one benchmark run as stored.
type Run struct {
	ID        string
	Workload  string // the workload's kind (the registry's name), or "pgbench"
	Title     string
	StartedAt time.Time
	EndedAt   time.Time
	Status    Status
	Owner     string // host:pid of the process that ran it, to tell a crash from a live run

	// MeasureStart and MeasureEnd bound the measured interval when the run
	// had a ramp-up (or a drain) that its figures exclude; zero when all of
	// the run was measured.
	MeasureStart time.Time
	MeasureEnd   time.Time

	Params   []KV
	Headline []Figure
	Latency  map[string]*hdrhistogram.Snapshot // whole-run histogram per transaction type, µs
	Series   []Interval                        // per second per type
	// SeriesAppended says the series was appended while the run went
	// (AppendSeries): Finish keeps those rows and adds Series, the rest.
	SeriesAppended bool
	// Hourly holds the latency histograms of each hour of the run per type,
	// when the recorder kept them (runs stored before it did have none).
	Hourly  []HourHistogram
	Samples *collect.Samples // nil when nothing was collected
	Notes   []string
	Tallies []Tally // input audits in numbers (a group sums them over its parts)
}

// Tally is one input audit in numbers that add up (workload.Tally).
type Tally struct {
	Name     string  `json:"name"`
	Count    int64   `json:"count"`
	Of       int64   `json:"of"`
	Scale    float64 `json:"scale"`
	Expected float64 `json:"expected"`
	SD       float64 `json:"sd"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	Allow    int64   `json:"allow"`
}

// Param returns the value of the named parameter, or "".
func (r *Run) Param(name string) string {
	for _, kv := range r.Params {
		if kv.Name == name {
			return kv.Value
		}
	}
	return ""
}

// Duration is how long the run went. A run without an end (still running,
// or incomplete: its process was killed) went as far as its stored series
// reach: a soak killed after three hours still has three hours to report.
func (r *Run) Duration() time.Duration {
	if r.EndedAt.IsZero() {
		return r.recordedSpan()
	}
	if r.EndedAt.Before(r.StartedAt) {
		return 0
	}
	return r.EndedAt.Sub(r.StartedAt)
}

// recordedSpan is the end of the latest stored interval.
func (r *Run) recordedSpan() time.Duration {
	var end float64
	for _, iv := range r.Series {
		length := iv.Length
		if length == 0 {
			length = 1
		}
		end = math.Max(end, float64(iv.Second)+length)
	}
	return time.Duration(end * float64(time.Second))
}

// Summary is one line of the run list.
type Summary struct {
	ID        string    `json:"id"`
	Workload  string    `json:"workload"`
	Title     string    `json:"title"`
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`
	Status    Status    `json:"status"`
	Headline  []Figure  `json:"headline"`
}
