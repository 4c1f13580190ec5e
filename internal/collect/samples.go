package collect

import (
	"time"

	"github.com/pgoltp/pgoltp/internal/secret"
)

// Samples is everything one collection session saw: the time series, the
// events and profiles derived from it, the before/after snapshots and the
// one-time settings. It is plain data so the store can keep it and the report
// can draw it without a live server.
type Samples struct {
	Start    time.Time
	End      time.Time
	Interval time.Duration

	Points     []Point     // the time series, one value per metric (and key) per tick, minus those handed out by Take
	Events     []Event     // checkpoints and other moments worth a vertical line
	Waits      []Wait      // wait events sampled from pg_stat_activity
	Statements []Statement // pg_stat_statements, delta over the session
	Tables     []Table     // per-table growth, churn and bloat, before and after
	Settings   []Setting   // the full pg_settings snapshot taken at the start
	Facts      []Fact      // one-time facts: server version, kernel, vm.*, THP, cgroups
	Cost       Cost        // what collecting cost
	Warnings   []string    // what could not be collected and why

	// Taken counts the points handed out by Session.Take during the run: the
	// caller stored them as they came (a long run must not keep them all in
	// memory), so Points holds only the rest and a final write adds just those.
	Taken int
	// EventsTaken counts the events handed out by Session.Take, as Taken
	// does the points: Events holds only those never taken.
	EventsTaken int
}

// Point is one sampled value. Metric names say their unit ("os.cpu.user_pct",
// "pg.wal.bytes_per_s"); Key separates instances of a metric (a device, an
// interface, a backend type, a table), empty when there is one.
type Point struct {
	At     time.Time
	Metric string
	Key    string
	Value  float64
}

// Event is a moment in the run: a checkpoint, a stats reset, a gap in sampling.
type Event struct {
	At     time.Time
	Kind   string // "checkpoint", "stats_reset", ...
	Detail string
}

// Wait counts how often active client backends were seen in one wait event;
// Type "CPU" with Event "running" is a backend on CPU (no wait event).
type Wait struct {
	Type    string
	Event   string
	Samples int64
}

// Statement is one normalized statement's activity during the session.
type Statement struct {
	QueryID    int64
	Query      string
	Calls      int64
	TotalMs    float64
	Rows       int64
	SharedHit  int64
	SharedRead int64
	WALBytes   float64
}

// MeanMs is the mean execution time of one call.
func (s Statement) MeanMs() float64 {
	if s.Calls == 0 {
		return 0
	}
	return s.TotalMs / float64(s.Calls)
}

// Table is one table before and after the session. Counters (Inserts, Updates,
// HotUpdates, Deletes, Autovacuums, Autoanalyzes) are deltas over the session.
// Bloat percentages are -1 when pgstattuple is not available.
type Table struct {
	Name         string
	TableBefore  int64 // bytes: heap, TOAST, FSM and VM (pg_table_size)
	TableAfter   int64
	IndexBefore  int64 // bytes of all its indexes
	IndexAfter   int64
	LiveAfter    int64
	DeadAfter    int64
	Inserts      int64
	Updates      int64
	HotUpdates   int64
	Deletes      int64
	Autovacuums  int64
	Autoanalyzes int64
	FreezeAge    int64 // age(relfrozenxid) at the end
	BloatBefore  float64
	BloatAfter   float64
}

// HOTRatio is the share of updates that were heap-only (no index change).
func (t Table) HOTRatio() float64 {
	if t.Updates == 0 {
		return 0
	}
	return float64(t.HotUpdates) / float64(t.Updates)
}

// Setting is one row of pg_settings with pgoltp's risk label for its value.
type Setting struct {
	Name           string
	Setting        string
	Unit           string
	Source         string
	BootVal        string
	ResetVal       string
	PendingRestart bool
	Risk           string // "" when harmless; else the risk class, e.g. "can-corrupt-on-crash"
	RiskReason     string
}

// Redacted returns the setting with every value replaced by
// secret.Redacted when the setting may hold a secret (primary_conninfo,
// *_command, ...): such values are never stored or shown.
func (s Setting) Redacted() Setting {
	s.Setting = secret.Redact(s.Name, s.Setting)
	s.BootVal = secret.Redact(s.Name, s.BootVal)
	s.ResetVal = secret.Redact(s.Name, s.ResetVal)
	return s
}

// Changed reports whether the setting differs from PostgreSQL's built-in
// default because someone set it (a file, the command line, ALTER SYSTEM,
// ALTER DATABASE/ROLE), as opposed to values the server computes itself.
func (s Setting) Changed() bool {
	switch s.Source {
	case "default", "override", "client", "session", "":
		return false
	}
	return s.Setting != s.BootVal
}

// Fact is a one-time name/value observation, grouped by Scope ("os", "server").
type Fact struct {
	Scope string
	Name  string
	Value string
}

// Cost is what the collectors spent. CollectorCPU is the CPU time of the
// sampling goroutine's own OS thread; BackendCPU is the CPU time of the server
// backend answering it (0 when the server is not on this machine). Snapshot
// work at start and stop is counted separately from the per-tick work, which is
// what the budget of 1% of a core applies to.
type Cost struct {
	Ticks        int
	TickCPU      time.Duration // collector thread CPU spent in ticks
	BackendCPU   time.Duration // server backend CPU during ticks (local servers only)
	SnapshotCPU  time.Duration // collector thread CPU spent on start/stop snapshots
	Elapsed      time.Duration // wall time between the first and the last tick
	BackendLocal bool
}

// PercentOfCore is the steady-state cost of collecting: per-tick CPU of the
// collector and its backend as a share of one core over the elapsed time.
func (c Cost) PercentOfCore() float64 {
	if c.Elapsed <= 0 {
		return 0
	}
	return 100 * float64(c.TickCPU+c.BackendCPU) / float64(c.Elapsed)
}
