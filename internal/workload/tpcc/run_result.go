package tpcc

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// RunResult is everything a run measured, for the summary, --json, the
// results store and comparisons.
type RunResult struct {
	Options RunOptions  `json:"options"`
	Params  [][2]string `json:"params"` // every parameter that produced the numbers
	CLoad   Constants   `json:"c_load"`
	CRun    Constants   `json:"c_run"`

	Start        time.Time     `json:"start"`
	MeasureStart time.Time     `json:"measure_start"` // end of ramp-up
	MeasureEnd   time.Time     `json:"measure_end"`
	TerminalsEnd time.Time     `json:"terminals_end"`
	End          time.Time     `json:"end"` // after the queued Deliveries were drained
	Measured     time.Duration `json:"measured_ns"`
	Interrupted  bool          `json:"interrupted"` // stopped by the caller (Ctrl-C)
	StopReason   string        `json:"stop_reason"`

	TpmC       float64 `json:"tpmc"`       // New-Orders per minute, rolled-back ones included (clause 5.4.2)
	TpmTotal   float64 `json:"tpm_total"`  // all five transactions per minute
	NOPM       float64 `json:"nopm"`       // New-Orders that committed, per minute (rolled-back ones excluded)
	Efficiency float64 `json:"efficiency"` // spec mode: % of MaxTpmCPerWarehouse × warehouses; 0 in nowait mode
	// Others are what HammerDB and BenchmarkSQL would report for this run.
	Others OtherTools `json:"other_tools"`

	// Compliance with the rules the driver controls (issue 11).
	// LoadedWarehouses is how many the database holds (Options.Warehouses
	// are driven); remote warehouses are drawn from all of them.
	LoadedWarehouses int `json:"loaded_warehouses"`
	// MaxTpmCPerWarehouse is the efficiency ceiling for the mix and keying
	// scale used (12.86 for 45/43/4/4/4 at the standard's times).
	MaxTpmCPerWarehouse float64 `json:"max_tpmc_per_warehouse"`
	// MixCompliant: the mix meets the minimums of clause 5.2.3.
	MixCompliant bool `json:"mix_compliant"`
	// NonCompliant lists, one line each with its clause, every way the run
	// departs from the standard (run_departures.go). Empty: none, and only
	// then is Compliance "compliant"; otherwise it is "indicative".
	NonCompliant []string `json:"non_compliant"`
	Compliance   string   `json:"compliance"`

	// DriverCPU is the driver process's user+system CPU from the first
	// terminal's start to the last one's end (/proc/self/stat), and
	// DriverCPUPer1k that per 1000 transactions (the five kinds) completed
	// in that time; DriverPeakRSS is VmHWM in bytes.
	DriverCPU      time.Duration `json:"driver_cpu_ns"`
	DriverCPUPer1k float64       `json:"driver_cpu_s_per_1k"`
	DriverPeakRSS  int64         `json:"driver_peak_rss_bytes"`

	Kinds []string    `json:"kinds"`
	Txns  []TxnResult `json:"txns"` // per kind, including delivery_deferred

	ErrorsTotal            int64           `json:"errors"`
	Retries                int64           `json:"retries"`
	Rollbacks              int64           `json:"rollbacks"`
	OrderStatusMismatches  int64           `json:"order_status_mismatches"` // outputs not one picture (clause 3.4), whole run; must be 0
	Reconnects             int64           `json:"reconnects"`
	Errors                 []ErrorCount    `json:"error_counts"`
	Outages                []driver.Outage `json:"outages"`
	Deliveries             DeliveryStats   `json:"deliveries"`
	DeliveriesNotCompleted int64           `json:"-"`
	Audits                 []Audit         `json:"audits"`
	// Split is where the transactions went and the lag the standbys' reads
	// saw, with reads on standbys (RunOptions.Reads); nil otherwise.
	Split *workload.ReadSplit `json:"read_split,omitempty"`

	Histograms map[string]*hdrhistogram.Snapshot `json:"histograms"` // measured interval, µs
	Series     *metrics.Series                   `json:"series"`     // per second, whole run
	Total      *metrics.Snapshot                 `json:"-"`          // measured interval, mergeable

	// Schemas holds each schema's own result when the run drove several
	// (RunOptions.Schemas); this result is then their merge: Options hold
	// the totals over the schemas, rates are sums over the one measured
	// window they share, latencies come from the merged histograms, and
	// Audits and NonCompliant are the schemas' own, named by schema. The
	// driver's CPU is the process's, in this result only.
	Schemas []*RunResult `json:"schemas,omitempty"`
}

// TxnResult is one transaction kind over the measured interval (errors and
// retries over the whole run).
type TxnResult struct {
	Name           string                 `json:"name"`
	Count          int64                  `json:"count"`
	Errors         int64                  `json:"errors"`
	Retries        int64                  `json:"retries"`
	Rollbacks      int64                  `json:"rollbacks"`
	LostConnection int64                  `json:"lost_connection"`
	Latency        metrics.LatencySummary `json:"latency"`
	P90Limit       time.Duration          `json:"p90_limit_ns"` // clause 5.2.5.3
	P90OK          bool                   `json:"p90_ok"`       // the one response time rule: p90 ≤ P90Limit
}

// DeliveryStats describe the deferred Deliveries (clause 2.7.2) of the
// measured interval, as the per-transaction table counts them; NotCompleted
// is those still queued at the end of the run.
type DeliveryStats struct {
	Queued           int64 `json:"queued"`
	Completed        int64 `json:"completed"`
	SkippedDistricts int64 `json:"skipped_districts"`
	// SkippedDeliveries counts the Deliveries that skipped at least one
	// district; clause 2.7.4.2 bounds these (audit "2.7.4.2").
	SkippedDeliveries int64         `json:"skipped_deliveries"`
	NotCompleted      int64         `json:"not_completed"` // still queued when the grace period ended
	P90Completion     time.Duration `json:"p90_completion_ns"`
}

// Txn returns the result of the named kind (zero if unknown).
func (r *RunResult) Txn(name string) TxnResult {
	for _, t := range r.Txns {
		if t.Name == name {
			return t
		}
	}
	return TxnResult{}
}

// AuditsPass reports whether no input audit failed.
func (r *RunResult) AuditsPass() bool {
	for _, a := range r.Audits {
		if a.Status == AuditFail {
			return false
		}
	}
	return true
}
