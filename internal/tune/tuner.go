// Package tuner is `pgoltp tune`: a noise-aware search for the settings
// that make a workload fastest on this server, and the proof and
// explanation of what it found.
//
// The search depends on nothing concrete: the server, the workload and the
// results store reach it through the small interfaces below, wired to
// pgoltp's types in adapters.go.
//
// # Noise
//
// Every trial runs after a short unmeasured prewarm and is followed by a
// run of the starting configuration (the baseline): B0 T1 B1 T2 B2 … Each
// trial is judged by its ratio to the geometric mean of its two neighbouring
// baseline runs, which is what the optimiser maximises. A baseline after
// every trial doubles the time, but on a shared machine whose speed drifts
// by more than the effects sought, a ratio to a baseline measured minutes
// earlier would credit a setting with the neighbour's build finishing.
// Before one configuration is declared best, the top candidates are re-run
// interleaved with the baseline (stats.Paired), and the winner is compared
// with advise's configuration the same way; the gains carry 95% intervals.
//
// Every run starts from the same state: with Reload the data is loaded
// again (a TPC-C run of a minute adds a tenth to the database: over a
// search it grew from 1 to 7 GB and its throughput fell by 40%, so early
// and late trials measured different databases), the cache is refilled,
// and a checkpoint starts the run's cycle (experiment.Checkpoint).
package tune

import (
	"context"
	"time"

	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/stats"
	"github.com/pgoltp/pgoltp/internal/tune/record"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Server is the server under tuning.
type Server interface {
	// Read returns pg_settings and the major version.
	Read(ctx context.Context) (map[string]settings.Live, int, error)
	// Apply sets all values at once, restarting at most once when one of
	// them needs it. A server that does not come back with them is put
	// back as it was and an error is returned.
	Apply(ctx context.Context, values map[string]string) (restarted bool, err error)
	// Restore puts the named settings back as they were in before and
	// verifies them by reading them back.
	Restore(ctx context.Context, before map[string]settings.Live, names []string) error
}

// CacheWarmer is a Server that can refill shared buffers after a restart
// (experiment.WarmCache), so that a short trial after a restart is not measured
// on a cold cache. Servers without it rely on the prewarm run alone.
type CacheWarmer interface {
	WarmCache(ctx context.Context) (int64, error)
}

// Checkpointer is a Server that can run a checkpoint (experiment.Checkpoint), so
// that every measured run starts at the same point of the checkpoint cycle:
// otherwise a trial right after a restart pays for full-page images that
// the baseline beside it does not, and a checkpoint landing in one run of
// a pair makes it look slow.
type Checkpointer interface {
	Checkpoint(ctx context.Context) error
}

// Workload is what the tuner drives.
type Workload interface {
	Name() string
	Prepare(ctx context.Context) error
	Run(ctx context.Context, d time.Duration) (workload.Measurement, error)
}

// Recorder keeps each run in the results store and returns its id, linked
// to its search; Save keeps the search's record there, so that its report
// needs nothing but the store.
type Recorder interface {
	Record(ctx context.Context, run RunInfo, m workload.Measurement, failure error) (string, error)
	Save(ctx context.Context, s *record.Search) error
}

// RunInfo says what a stored run was.
type RunInfo struct {
	Search   string            // the search id
	Trial    int               // 0 for runs outside the search phase
	Role     string            // trial, baseline, confirm, advise, ablation, layout
	Label    string            // e.g. "best without work_mem"
	Settings map[string]string // the configuration run
	Started  time.Time
}

// Roles of stored runs.
const (
	RoleTrial    = record.RoleTrial
	RoleBaseline = record.RoleBaseline
	RoleConfirm  = record.RoleConfirm
	RoleAdvise   = record.RoleAdvise
	RoleAblation = record.RoleAblation
	RoleLayout   = record.RoleLayout
)

// Objectives.
const (
	ObjectiveTPS  = "tps"
	ObjectiveTPMC = "tpmc"
	ObjectiveP99  = "p99"
	// ObjectivePerCPU is committed transactions per CPU-second of the
	// server and the driver (workload.Measurement.PerCPU): what a
	// transaction costs, unchanged by a neighbour stealing the CPU. It
	// needs the server on this host.
	ObjectivePerCPU = "per-cpu"
)

// level is the confidence of every interval the tuner reports.
const level = 0.95

// runOf turns a measurement into what stats.Paired compares for the
// objective: throughput with its per-second samples, or the inverse of
// p99 (so that higher is better for every objective). tpmc is judged on
// all committed transactions: in TPC-C's fixed mix New-Order is a constant
// share of them, so the ratios the search and the intervals use are the same.
func runOf(objective string, m workload.Measurement) stats.Run {
	if objective == ObjectivePerCPU {
		return stats.Run{Level: m.PerCPU()} // 0 (no run) when the server's CPU is unknown
	}
	if objective == ObjectiveP99 {
		if m.P99 <= 0 {
			return stats.Run{}
		}
		return stats.Run{Level: float64(time.Second) / float64(m.P99)}
	}
	return stats.Run{Level: m.TPS(), Samples: m.PerSecond}
}
