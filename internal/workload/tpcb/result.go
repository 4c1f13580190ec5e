package tpcb

import (
	"time"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/measure"
	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// RunResult is everything a run measured, with every parameter that
// produced it, for the summary, --json, reports and tuning.
type RunResult struct {
	Options     RunOptions `json:"options"`
	Description string     `json:"transaction_type"` // pgbench's "<builtin: TPC-B (sort of)>"
	Scale       int        `json:"scale"`
	Branches    string     `json:"branches,omitempty"` // with --part: the part's branches, "first-last"

	Start       time.Time     `json:"start"`
	Elapsed     time.Duration `json:"elapsed_ns"`      // from the first transaction to the last, connections excluded
	ConnectTime time.Duration `json:"connect_time_ns"` // pgbench's "initial connection time"
	Interrupted bool          `json:"interrupted"`     // ctx ended the run early
	EventLoop   bool          `json:"event_loop"`      // clients ran in pgbench-style loops: always, since pgbench's engine runs them (false in runs stored before, for a goroutine each)

	Committed int64   `json:"committed"` // "number of transactions actually processed"
	Failed    int64   `json:"failed"`    // serialization failures/deadlocks out of tries
	Retried   int64   `json:"retried"`   // transactions retried at least once
	Retries   int64   `json:"retries"`   // total retries
	Skipped   int64   `json:"skipped"`   // --rate with --latency-limit: not sent, already late
	Late      int64   `json:"late"`      // committed above --latency-limit
	TPS       float64 `json:"tps"`       // committed per second of Elapsed

	Latency       metrics.LatencySummary  `json:"latency"` // committed transactions, from their scheduled start with --rate
	LatencyStddev time.Duration           `json:"latency_stddev_ns"`
	Lag           *metrics.LatencySummary `json:"schedule_lag,omitempty"` // --rate: start minus scheduled start

	Statements []StatementResult `json:"statements"`

	// The driver's own cost while the clients ran (this process, from /proc):
	// CPU, CPU seconds per 1000 committed transactions, peak RSS in bytes.
	DriverCPU      time.Duration `json:"driver_cpu_ns"`
	DriverCPUPer1k float64       `json:"driver_cpu_s_per_1k"`
	PeakRSS        int64         `json:"peak_rss_bytes"`

	AbortedClients int      `json:"aborted_clients"`
	Errors         []string `json:"errors,omitempty"`

	// Outages are the connections lost during the run (a server restart,
	// a network blip) and when each came back; the client went on after.
	// InDoubt counts the transactions in flight when a connection went:
	// each may or may not have committed, so the check allows for them.
	Outages []driver.Outage `json:"outages,omitempty"`
	InDoubt int64           `json:"in_doubt,omitempty"`

	// Series has one point per SeriesEach (default one second) of the one
	// kind "transaction" (committed transactions, their p50/p95/p99 and the
	// counters): tps over time. Statements are in Snapshots and Total.
	Series *metrics.Series `json:"series"`
	// Snapshots are the histograms of each SnapshotEach window, encoded.
	Snapshots []HistogramSnapshot `json:"snapshots"`
	// Histograms are the whole run's histograms, encoded (hdrhistogram.Decode).
	Histograms map[string][]byte `json:"histograms"`

	Check *CheckResult `json:"check,omitempty"` // nil with NoCheck or when interrupted

	// Split is where the transactions went and the lag the standbys' reads
	// saw, with reads on standbys (Options.Reads); nil otherwise.
	Split *workload.ReadSplit `json:"read_split,omitempty"`

	// Total is the whole run's merged snapshot (not serialised: Histograms is).
	Total *metrics.Snapshot `json:"-"`
}

// StatementResult is one statement's latency and the failures and retries
// that happened at it (pgbench -r).
type StatementResult struct {
	Name     string                 `json:"name"`
	Text     string                 `json:"text"`
	Latency  metrics.LatencySummary `json:"latency"`
	Failures int64                  `json:"failures"`
	Retries  int64                  `json:"retries"`
}

// HistogramSnapshot is the latency histograms of one window of the run,
// per kind ("transaction", each statement, "schedule_lag"), in HdrHistogram's
// compressed V2 encoding (µs), with their digests: the Meter's windows.
type HistogramSnapshot = measure.Window

// Processed is committed plus failed transactions: all that ran to an end.
func (r *RunResult) Processed() int64 { return r.Committed + r.Failed }
