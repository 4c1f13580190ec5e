package workload

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/metrics"
)

// Workload is one benchmark workload, configured (scale, clients, its own
// options) and ready to load, run and check a database.
type Workload interface {
	// Kind is the registry's name for it: "tpcc", "tpcb", "ledger".
	Kind() string
	// Name says what runs, for reports: "tpcb scale 1, 4 clients".
	Name() string
	// Prepare creates the schema and loads the data, replacing what is there,
	// with the given layout (table storage options such as fillfactor; nil:
	// the workload's defaults). Experiments also call it to restore the
	// baseline data between runs of a step that changes the layout.
	Prepare(ctx context.Context, dsn string, layout Layout) error
	// Run drives the workload as its own options and opts say and returns
	// what it measured. A run cut short by ctx returns what it has, marked
	// Interrupted; a run that could not start returns an error and possibly
	// no result.
	Run(ctx context.Context, dsn string, opts RunOptions) (*Result, error)
	// Check verifies the database after a run: nil when the workload has no
	// check, or its own options turned it off.
	Check(ctx context.Context, dsn string) (*Check, error)
}

// RunOptions are what the caller of one run asks beyond the workload's own
// options.
type RunOptions struct {
	// Duration, if set, replaces the workload's own length of run.
	Duration time.Duration
	// OnInterval, if set, gets each interval of the run's series as it is
	// measured: how the recorder keeps one real histogram per hour of a long
	// run, and every second of its series, without holding the run's
	// intervals in memory.
	OnInterval IntervalFunc
}

// IntervalFunc receives each interval snapshot a workload adds to its
// Result.Series (same kinds, same intervals, ramp-up included), while the run
// goes, on the workload's measuring goroutine, with the name of the
// snapshot's counter of failed transactions (Result.ErrorCounter). It must
// return quickly and must neither modify nor keep the snapshot: it reads it
// (to merge its histograms into one per hour of the run, to store its row of
// the series) and lets go.
type IntervalFunc func(snap *metrics.Snapshot, errorCounter string)

// How a workload checks the database after a run (each workload's
// CheckMode): every workload takes the same three; one whose check has no
// cheaper form runs its whole check for CheckQuick.
const (
	CheckNone  = "none"
	CheckQuick = "quick" // the workload's default: its cheap conditions
	CheckFull  = "full"
)

// Layout holds data-layout options that need the data rewritten to take
// effect, e.g. {"fillfactor": "90"}. Each workload says which it supports.
type Layout map[string]string

// LayoutOptions lists the layout options a workload honours; Prepare of a
// workload that does not implement it accepts none.
type LayoutOptions interface {
	LayoutOptions() []string
}

// The capabilities below are optional, found by type assertion; each says
// who asks.

// Ready is implemented by workloads that can tell, before anything is
// stored, whether the database holds what a run needs and the options fit
// (internal/recorder asks before it stores a run).
type Ready interface {
	Ready(ctx context.Context, dsn string) error
}

// Unchecked is implemented by workloads whose Check may check nothing (a
// recorded command, an imported log, a run with CheckMode none): when it
// says true, internal/recorder does not say it is checking consistency.
type Unchecked interface {
	Unchecked() bool
}

// UpdatedInPlace is implemented by workloads that update rows in place: the
// tables whose fillfactor `pgoltp tune --layout` searches (internal/tune).
type UpdatedInPlace interface {
	UpdatedTables() []string
}

// Measurement is the part of a run experiments compare.
type Measurement struct {
	Transactions int64         `json:"transactions"` // committed
	Errors       int64         `json:"errors"`       // failed transactions (after retries, if any)
	Elapsed      time.Duration `json:"elapsed_ns"`
	P50          time.Duration `json:"p50_ns"`
	P95          time.Duration `json:"p95_ns"`
	P99          time.Duration `json:"p99_ns"`
	// PerSecond holds committed transactions in each whole second of the
	// measured run: the samples of the experiment statistics (stats.Run).
	PerSecond []float64 `json:"per_second"`
	// ServerCPU and DriverCPU are the CPU time the server (all processes
	// of the cluster) and the driver (this process) used over the measured
	// run, measured around it by its caller (collect.CPUMeter); ServerCPU
	// is 0 when the server is not on this host.
	ServerCPU time.Duration `json:"server_cpu_ns,omitempty"`
	DriverCPU time.Duration `json:"driver_cpu_ns,omitempty"`
	// Covariates, measured alongside (issue 29 point 2): the host's steal
	// time over the run (all CPUs), and the CPU time a fixed unit of work
	// took once a second (collect.SpeedProbe): what the neighbours did and
	// how fast the CPU was.
	Steal      time.Duration   `json:"steal_ns,omitempty"`
	SpeedProbe []time.Duration `json:"speed_probe_ns,omitempty"`
	// Covariates are the host's covariates over the run by name (the
	// neighbours' CPU, the run queue, disk reads, ...), filled by the
	// caller that measured them (experiment.HostCovariates); nil: none.
	Covariates map[string]float64 `json:"covariates,omitempty"`
}

// SetCPU records a CPU meter's figures over the run.
func (m *Measurement) SetCPU(server, driver, steal time.Duration, probe []time.Duration) {
	m.ServerCPU, m.DriverCPU, m.Steal, m.SpeedProbe = server, driver, steal, probe
}

// PerCPU is committed transactions per CPU-second of the server and the
// driver together: what a transaction costs, which a neighbour stealing
// the CPU does not change (throughput it does). 0 when the server's CPU was
// not measured.
func (m Measurement) PerCPU() float64 {
	cpu := m.ServerCPU + m.DriverCPU
	if m.ServerCPU <= 0 || cpu <= 0 {
		return 0
	}
	return float64(m.Transactions) / cpu.Seconds()
}

// PerServerCPU and PerDriverCPU are committed transactions per CPU-second
// of the server alone and of the driver alone (0: not measured).
func (m Measurement) PerServerCPU() float64 { return perCPU(m.Transactions, m.ServerCPU) }
func (m Measurement) PerDriverCPU() float64 { return perCPU(m.Transactions, m.DriverCPU) }

func perCPU(txns int64, cpu time.Duration) float64 {
	if cpu <= 0 {
		return 0
	}
	return float64(txns) / cpu.Seconds()
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
	if len(m.PerSecond) < 2 {
		return 0
	}
	var sum float64
	for _, x := range m.PerSecond {
		sum += x
	}
	mean := sum / float64(len(m.PerSecond))
	var ss float64
	for _, x := range m.PerSecond {
		ss += (x - mean) * (x - mean)
	}
	if mean == 0 {
		return 0
	}
	return math.Sqrt(ss/float64(len(m.PerSecond)-1)) / mean
}

// Figures are the throughput and latency a comparison of runs across
// PostgreSQL majors reads (internal/study): each workload's own choice, the
// New-Order latency of TPC-C for one.
type Figures struct {
	Txns, TPS     float64 // committed transactions, per second
	P50, P95, P99 time.Duration
}

// Figure is one headline number of a run: "tpmC 1234 New-Orders/min".
type Figure struct {
	Name  string
	Value float64
	Unit  string
}

// Param is one parameter that produced the numbers.
type Param struct{ Name, Value string }

// Result is what one run of a workload produced, in terms every workload
// shares.
type Result struct {
	Measurement
	Headline []Figure
	Params   []Param
	// Latency holds the whole run's histograms (µs) per transaction type.
	Latency map[string]*hdrhistogram.Snapshot
	// Series is the per-interval series; ErrorCounter names its counter of
	// failed transactions ("" when it has none).
	Series       *metrics.Series
	ErrorCounter string
	Notes        []string
	// Rate names the headline throughput and the series type it counts, so
	// that a group of parts (internal/group) can sum it over their common
	// window: {"tpmC", "new_order", "New-Orders/min", time.Minute}.
	Rate Rate
	// Tallies are the input audits in numbers that add up over the parts of
	// a group (nil: none).
	Tallies []Tally
	// MeasureStart..MeasureEnd is the measured window (zero: the whole run);
	// End is when the run ended.
	MeasureStart, MeasureEnd, End time.Time
	Interrupted                   bool
	// Detail is the workload's own result (*tpcc.RunResult, ...) for its
	// command's summary and JSON.
	Detail any
}

// Rate is a throughput figure as counts of one series type per Per.
type Rate struct {
	Figure, Type, Unit string
	Per                time.Duration
}

// Gated is implemented by workloads whose Run can wait at a gate once its
// connections are open, just before its clock starts: the agreed start of a
// group of parts (internal/group).
type Gated interface {
	SetStartGate(gate func(context.Context) error)
}

// Check is the verdict of a workload's consistency check.
type Check struct {
	Passed bool
	// Note sums it up for a stored run: "consistency check: 12 PASS, 0 FAIL, 0 SKIP".
	Note     string
	Headline []Figure
	// Failed names the conditions that failed.
	Failed []string
	// Detail is the workload's own report, for its command.
	Detail any
}

// LatencyOf exports a merged snapshot's histograms per transaction type,
// leaving out the types that never ran.
func LatencyOf(total *metrics.Snapshot) map[string]*hdrhistogram.Snapshot {
	if total == nil {
		return nil
	}
	out := make(map[string]*hdrhistogram.Snapshot, len(total.Kinds))
	for k, name := range total.Kinds {
		if total.Hists[k].TotalCount() > 0 {
			out[name] = total.Hists[k].Export()
		}
	}
	return out
}

// PerSecondOf turns a driver's series into committed transactions per second
// per point, all kinds together, leaving out ramp-up (points outside the
// measured window when the series marks one) and the run's ragged last sliver.
func PerSecondOf(s *metrics.Series) []float64 {
	if s == nil {
		return nil
	}
	measured := false
	for _, p := range s.Points {
		measured = measured || p.Measured
	}
	out := make([]float64, 0, len(s.Points))
	for _, p := range s.Points {
		if p.Length < 500*time.Millisecond || measured && !p.Measured {
			continue
		}
		var n int64
		for _, c := range p.Counts {
			n += c
		}
		out = append(out, float64(n)/p.Length.Seconds())
	}
	return out
}

// Verdict is one named PASS/FAIL/SKIP outcome, for Summarize.
type Verdict struct{ Status, What string }

// Summarize folds outcomes into one note: the counts, and what failed.
func Summarize(title string, vs []Verdict) string {
	counts := map[string]int{}
	var failed []string
	for _, v := range vs {
		counts[v.Status]++
		if v.Status == "FAIL" {
			failed = append(failed, v.What)
		}
	}
	s := fmt.Sprintf("%s: %d PASS, %d FAIL, %d SKIP", title, counts["PASS"], counts["FAIL"], counts["SKIP"])
	if len(failed) > 0 {
		s += "; failed: " + strings.Join(failed, "; ")
	}
	return s
}

// StatementFigure starts the name of a headline Figure that is one
// statement's mean latency in ms in a script run (pgbench -r):
// "statement · SCRIPT · COMMAND". The report shows these in a table of
// their own, not as headline figures.
const StatementFigure = "statement · "

// StatementName is the figure name of command in script.
func StatementName(script, command string) string {
	return StatementFigure + script + " · " + command
}
