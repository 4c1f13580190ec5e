package tune

import (
	"context"
	"math"
	"time"
)

// Workload is what experiments drive. TPC-C and TPC-B reach this package
// through small adapters (workloads.go); the built-in Ledger needs nothing else.
type Workload interface {
	// Name says what runs, for reports: "tpcb scale 1, 4 clients".
	Name() string
	// Prepare creates the schema and loads the data, replacing what is there,
	// with the given layout (table storage options such as fillfactor; nil:
	// the workload's defaults). Experiments also call it to restore the
	// baseline data between runs of a step that changes the layout.
	Prepare(ctx context.Context, dsn string, layout Layout) error
	// Run drives the workload for d and returns what it measured.
	Run(ctx context.Context, dsn string, d time.Duration) (Measurement, error)
}

// Layout holds data-layout options that need the data rewritten to take
// effect, e.g. {"fillfactor": "90"}. Each workload says which it supports.
type Layout map[string]string

// LayoutOptions lists the layout options a workload honours; Prepare of a
// workload that does not implement it accepts none.
type LayoutOptions interface {
	LayoutOptions() []string
}

// Measurement is what one run of a workload measured.
type Measurement struct {
	Transactions int64         `json:"transactions"` // committed
	Errors       int64         `json:"errors"`       // failed transactions (after retries, if any)
	Elapsed      time.Duration `json:"elapsed_ns"`
	P50          time.Duration `json:"p50_ns"`
	P95          time.Duration `json:"p95_ns"`
	P99          time.Duration `json:"p99_ns"`
	// PerSecond holds committed transactions in each whole second of the run.
	PerSecond []float64 `json:"per_second"`
}

// TPS is committed transactions per second over the run.
func (m Measurement) TPS() float64 {
	if m.Elapsed <= 0 {
		return 0
	}
	return float64(m.Transactions) / m.Elapsed.Seconds()
}

// CV is the coefficient of variation of per-second throughput: 0 is perfectly
// steady; checkpoints and vacuum show up as a larger CV.
func (m Measurement) CV() float64 {
	mean, sd := meanSD(m.PerSecond)
	if mean == 0 || math.IsNaN(sd) {
		return 0
	}
	return sd / mean
}
