package tpcb

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/pgoltp/pgoltp/internal/field"
	"github.com/pgoltp/pgoltp/internal/measure"
	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// RunOptions are pgbench's run options, under pgbench's names where it has
// them (in parentheses).
type RunOptions struct {
	Script   Script   `json:"script"`   // -b: tpcb-like, simple-update (-N), select-only (-S)
	Clients  int      `json:"clients"`  // -c: concurrent connections (default 1)
	Jobs     int      `json:"jobs"`     // -j: threads; recorded, the command sets GOMAXPROCS from it (CPUs)
	Protocol Protocol `json:"protocol"` // -M: simple (default), extended, prepared
	Rate     float64  `json:"rate"`     // -R: target transactions per second over all clients; 0 = as fast as possible
	// RatePhases is a step load: the rate by slice of the run (sweep
	// --phases); the run lasts until the last phase ends. Excludes Rate.
	RatePhases   []measure.RatePhase `json:"rate_phases,omitempty"`
	LatencyLimit time.Duration       `json:"latency_limit"` // --latency-limit: count late ones; with Rate, skip those already late
	MaxTries     int                 `json:"max_tries"`     // --max-tries: 1 = no retries (0 means the default, 1); negative = unlimited
	Transactions int                 `json:"transactions"`  // -t: per client (default 10 when no Duration)
	Duration     time.Duration       `json:"duration"`      // -T
	// StopAtTxns (--stop-at-txns) ends the run after this many transactions
	// over all clients, for fixed-size studies: exactly that many are
	// started and run to their end (committed, or failed after --max-tries;
	// under --rate with --latency-limit, skipped ones count too, as with -t).
	// With Duration, whichever comes first ends the run.
	StopAtTxns int64         `json:"stop_at_txns,omitempty"`
	Progress   time.Duration `json:"progress"`  // -P: print progress this often; 0 = never
	Isolation  string        `json:"isolation"` // default_transaction_isolation of the clients; "" = server default
	NoVacuum   bool          `json:"no_vacuum"` // -n: skip the vacuum of tellers and branches before the run
	// TruncateHistory empties pgbench_history before the run, as pgbench's
	// own pre-run step does (pgoltp keeps it by default so that Check holds
	// over the database's life). The run's check is unaffected.
	TruncateHistory bool          `json:"truncate_history"`
	NoCheck         bool          `json:"no_check"`      // skip the balance/history check after the run
	Seed            uint64        `json:"seed"`          // --random-seed; 0 = from the clock
	SnapshotEach    time.Duration `json:"snapshot_each"` // histogram snapshot interval (default 1 min)
	SeriesEach      time.Duration `json:"series_each"`   // per-interval series point length (default 1 s)
	Out             io.Writer     `json:"-"`             // progress lines ("progress: ..."); nil = none
	// OnInterval, if set, gets each interval the series is built from (the
	// transaction kind only), from the aggregating goroutine; it must return
	// quickly and not keep the snapshot (workload.IntervalFunc).
	OnInterval func(*metrics.Snapshot) `json:"-"`
	// Part (--part k/n) makes this run one of n processes driving the
	// database together: each transaction draws its branch uniformly from
	// the part's contiguous range of branches (pgbench draws it from all);
	// accounts and tellers are still drawn from the whole database.
	Part workload.Part `json:"part,omitempty"`
	// StartGate, if set, is called once the clients are connected, just
	// before they start: a group's agreed start (internal/group). The run's
	// clock starts when it returns; an error ends the run.
	StartGate func(context.Context) error `json:"-"`

	// Reads sends the read-only script's clients to standbys, round-robin
	// (--reads standby, --read-dsn); only select-only is read-only.
	Reads workload.Reads `json:"-"`

	budget *measure.Budget // StopAtTxns, shared by the clients of one Run
}

// isolationLevels maps the accepted names to PostgreSQL's.
var isolationLevels = map[string]string{
	"read-committed":  "read committed",
	"repeatable-read": "repeatable read",
	"serializable":    "serializable",
}

// Validate checks the options as pgbench does and fills in its defaults.
func (o *RunOptions) Validate() error {
	if o.Script == "" {
		o.Script = ScriptTPCB
	}
	if _, err := o.Script.def(); err != nil {
		return err
	}
	if o.Clients == 0 {
		o.Clients = 1
	}
	if o.Clients < 1 {
		return fmt.Errorf("invalid number of clients %d: must be at least 1", o.Clients)
	}
	if o.Jobs == 0 {
		o.Jobs = 1
	}
	if o.Jobs < 1 {
		return fmt.Errorf("invalid number of jobs %d: must be at least 1", o.Jobs)
	}
	if o.Jobs > o.Clients {
		return fmt.Errorf("number of jobs (%d) must not exceed the number of clients (%d)", o.Jobs, o.Clients)
	}
	switch o.Protocol {
	case "":
		o.Protocol = ProtocolSimple
	case ProtocolSimple, ProtocolExtended, ProtocolPrepared:
	default:
		return fmt.Errorf("invalid protocol %q: must be simple, extended or prepared", string(o.Protocol))
	}
	if o.Rate < 0 {
		return fmt.Errorf("invalid rate %g: must be positive", o.Rate)
	}
	if err := o.validatePhases(); err != nil {
		return err
	}
	if o.LatencyLimit < 0 {
		return fmt.Errorf("invalid latency limit %s: must be positive", o.LatencyLimit)
	}
	if err := o.validateEnd(); err != nil {
		return err
	}
	if err := o.Part.Validate(); err != nil {
		return err
	}
	if o.Progress < 0 {
		return fmt.Errorf("invalid progress interval %s", o.Progress)
	}
	if o.Isolation != "" {
		if _, ok := isolationLevels[o.Isolation]; !ok {
			return fmt.Errorf("invalid isolation %q: must be read-committed, repeatable-read or serializable", o.Isolation)
		}
	}
	if err := o.validateReads(); err != nil {
		return err
	}
	if o.SnapshotEach == 0 {
		o.SnapshotEach = time.Minute
	}
	if o.SeriesEach == 0 {
		o.SeriesEach = time.Second
	}
	if o.SnapshotEach < 0 || o.SeriesEach < 0 {
		return fmt.Errorf("snapshot and series intervals must be positive")
	}
	if o.Seed == 0 {
		o.Seed = uint64(time.Now().UnixNano())
	}
	return nil
}

// validatePhases checks a step load: phases in order, rates of 0 or more,
// no other rate; the run's duration is the phases' unless shorter.
func (o *RunOptions) validatePhases() error {
	if len(o.RatePhases) == 0 {
		return nil
	}
	if o.Rate > 0 {
		return field.New("RatePhases", len(o.RatePhases), "{} and {Rate} exclude each other: the phases give the rate")
	}
	var prev time.Duration
	for i, p := range o.RatePhases {
		if p.Until <= prev || p.PerSecond < 0 {
			return field.New("RatePhases", i+1, "phase %d (until %s at %g/s): phases must follow each other, at a rate of 0 or more", i+1, p.Until, p.PerSecond)
		}
		prev = p.Until
	}
	if o.Duration == 0 || o.Duration > prev {
		o.Duration = prev
	}
	return nil
}

// validateEnd checks and completes how the run ends: tries per transaction,
// transactions per client or in all, a duration (10 transactions per client
// when none is given).
func (o *RunOptions) validateEnd() error {
	if o.MaxTries == 0 {
		o.MaxTries = 1
	}
	if o.MaxTries < 0 {
		o.MaxTries = -1
	}
	if o.MaxTries < 0 && o.LatencyLimit == 0 && o.Duration == 0 {
		return fmt.Errorf("unlimited max tries need a latency limit or a duration, as in pgbench")
	}
	if o.Transactions < 0 || o.Duration < 0 {
		return fmt.Errorf("transactions and duration must not be negative")
	}
	if o.Transactions > 0 && o.Duration > 0 {
		return fmt.Errorf("specify either a number of transactions or a duration, not both")
	}
	if o.StopAtTxns < 0 {
		return field.New("StopAtTxns", o.StopAtTxns, "invalid {} %d: must be positive", o.StopAtTxns)
	}
	if o.StopAtTxns > 0 && o.Transactions > 0 {
		return field.New("StopAtTxns", o.StopAtTxns, "specify either transactions per client ({Transactions}) or a total ({}), not both")
	}
	if o.Transactions == 0 && o.Duration == 0 && o.StopAtTxns == 0 {
		o.Transactions = 10
	}
	return nil
}

// validateReads refuses reads on standbys for a script that writes, and at
// serializable, which a standby does not run.
func (o *RunOptions) validateReads() error {
	if !o.Reads.On() {
		return nil
	}
	if !o.Script.ReadOnly() {
		return field.New("Reads", o.Reads.Nodes[0].Name, "{} sends read-only work to a standby, and the script %s writes; use the select-only script (-S)", o.Script)
	}
	if o.Isolation == "serializable" {
		return field.New("Isolation", o.Isolation, "{} serializable cannot run on a standby (PostgreSQL has no serializable reads in recovery); use repeatable-read with {Reads}")
	}
	return nil
}
