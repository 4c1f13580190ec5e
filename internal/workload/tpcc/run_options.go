package tpcc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/field"
	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Execution paths and modes of a run.
const (
	PathClient = "client" // prepared statements, pipelined batches
	PathServer = "server" // one PL/pgSQL function call per transaction
	ModeSpec   = "spec"   // keying and think times of clause 5.2.5.7
	ModeNoWait = "nowait" // no keying or think time: what tuning studies run
)

// isolationLevels maps --isolation to default_transaction_isolation.
var isolationLevels = map[string]string{
	"read-committed":  "read committed",
	"repeatable-read": "repeatable read",
	"serializable":    "serializable",
}

// RunOptions say how to drive a loaded TPC-C database.
type RunOptions struct {
	Path string // PathClient (default) or PathServer
	Mode string // ModeNoWait (default) or ModeSpec
	// Warehouses: drive warehouses 1..N (their terminals' home warehouses);
	// 0 = all that were loaded. Remote warehouses are still drawn from all
	// loaded ones (clauses 2.4.1.5, 2.5.1.2).
	Warehouses int
	// Terminals: 0 = 10 per warehouse (clause 4.2.2) in both modes; at least
	// one per warehouse, so that every driven warehouse has home terminals.
	Terminals int
	// Conns: connections the terminals share; 0 = a default.
	Conns int
	// DeliveryWorkers execute queued Deliveries, each on its own connection
	// and its own warehouses; 0 = a default.
	DeliveryWorkers int
	Duration        time.Duration // measurement after Ramp; 0 = until TxnsPerTerminal or cancel
	Ramp            time.Duration // warm-up, not measured
	TxnsPerTerminal int           // stop each terminal after this many; 0 = no limit
	// StopAtTxns (--stop-at-txns) ends the run after this many transactions
	// of all five kinds over all terminals, ramp-up included, for
	// fixed-size studies: each terminal takes a ticket before it keys a
	// transaction, so exactly that many are submitted and each runs to its
	// end (committed, rolled back by the spec's 1% rule, failed after its
	// retries, or queued as a Delivery that the delivery workers then
	// finish). 0 = no limit; with Duration, whichever comes first.
	StopAtTxns int64
	Rate       float64 // transactions per minute over all terminals; 0 = unlimited
	Weights    []int   // NO,P,OS,D,SL card counts; nil = the 23-card deck
	MaxRetries int     // retries of serialization failures and deadlocks; 0 = default 10, <0 = none
	Isolation  string  // read-committed (default), repeatable-read, serializable
	// KeyingScale multiplies keying and think times in spec mode (1 = the
	// standard's times; tests use a small value to finish in seconds).
	KeyingScale float64
	Seed        uint64 // 0 = a random seed (reported in the result)
	Schema      string // "" = public
	// Schemas drives several schemas in one run, each an independent TPC-C
	// database driven as if it were run alone with these options: every
	// count (Warehouses, Terminals, Conns, DeliveryWorkers, Rate,
	// StopAtTxns) is per schema. Schema must then be empty. The result
	// merges them and keeps each in RunResult.Schemas.
	Schemas []string
	// Part (--part k/n) makes this run one of n processes driving the
	// database together: its terminals' home warehouses are the k-th
	// contiguous range of the driven ones (workload.Part.Range), while remote
	// warehouses are still drawn from all loaded (clauses 2.4.1.5, 2.5.1.2).
	// The zero Part drives them all.
	Part workload.Part
	// StartGate, if set, is called once the connections are open, just
	// before the terminals start: a group's agreed start (internal/group).
	// The run's clock starts when it returns; an error ends the run.
	StartGate func(context.Context) error `json:"-"`
	// AllowNonCompliant lets spec mode run what the standard does not allow
	// (a mix below the minimums of clause 5.2.3, more than 10 terminals per
	// warehouse); the result is marked non-compliant.
	AllowNonCompliant bool
	// Reads sends Order-Status and Stock-Level to standbys (--reads
	// standby, --read-dsn; run_reads.go); the run is then non-compliant.
	Reads workload.Reads `json:"-"`
	// Pooled says the data path drops session startup parameters
	// (pgbouncer before 1.20 in transaction pooling; see run_pooled.go).
	Pooled bool `json:"-"`

	// homeFirst..homeFirst+homeCount-1 are the home warehouses (Resolve).
	homeFirst, homeCount int

	Progress    time.Duration // live line every Progress; 0 = none
	ProgressOut io.Writer     `json:"-"` // where the live line goes (nil: none)
	DeliveryLog io.Writer     `json:"-"` // one line per completed Delivery (clause 2.7.2.2); nil: none
	// OnSecond, if set, is called once per second (from one goroutine) with the
	// interval just ended; it must return quickly.
	OnSecond func(Second) `json:"-"`
}

// Second is one second of a run, for OnSecond hooks.
type Second struct {
	Elapsed  time.Duration
	Measured bool              // after ramp-up
	Point    metrics.Point     // counts and percentiles per kind
	Interval *metrics.Snapshot // the interval's histograms (owned by the receiver)
	TpmC     float64           // New-Orders per minute in this second
	TpmTotal float64
}

// Validate checks the options before any work starts and fills defaults that
// do not depend on the database. Errors are field errors (field.Error): the
// option, its value and the fix.
func (o *RunOptions) Validate() error {
	if o.Path == "" {
		o.Path = PathClient
	}
	if o.Path != PathClient && o.Path != PathServer {
		return field.New("Path", o.Path, "{} %q: use client or server", o.Path)
	}
	if o.Mode == "" {
		o.Mode = ModeNoWait
	}
	if o.Mode != ModeSpec && o.Mode != ModeNoWait {
		return field.New("Mode", o.Mode, "{} %q: use spec or nowait", o.Mode)
	}
	if o.Isolation == "" {
		o.Isolation = "read-committed"
	}
	if _, ok := isolationLevels[o.Isolation]; !ok {
		return field.New("Isolation", o.Isolation, "{} %q: use read-committed, repeatable-read or serializable", o.Isolation)
	}
	if err := o.validateCounts(); err != nil {
		return err
	}
	if len(o.Schemas) > 0 {
		if o.Schema != "" {
			return bothSchemas(o.Schema)
		}
		if err := validSchemas(o.Schemas); err != nil {
			return err
		}
		if o.Part.N > 0 {
			return field.New("Part", o.Part, "{} with {Schemas}: a group part drives one schema; run one group per schema")
		}
	}
	if err := o.Part.Validate(); err != nil {
		return err
	}
	if o.Weights == nil {
		o.Weights = DefaultWeights()
	} else if len(o.Weights) != numDealt {
		return field.New("Weights", o.Weights, "{} has %d numbers, want 5 (NO,P,OS,D,SL)", len(o.Weights))
	}
	if o.Mode == ModeSpec && !MixMeetsMinimum(o.Weights) && !o.AllowNonCompliant {
		return field.New("Weights", o.Weights, "{} %s is below the minimum mix of clause 5.2.3 (Payment ≥ 43%%, Order-Status, Delivery, Stock-Level ≥ 4%% each); meet it, or pass {AllowNonCompliant} to run it marked non-compliant",
			weightsString(o.Weights))
	}
	if err := o.validateReads(); err != nil {
		return err
	}
	if o.KeyingScale == 0 {
		o.KeyingScale = 1
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = 10
	} else if o.MaxRetries < 0 {
		o.MaxRetries = 0
	}
	return nil
}

// validateCounts refuses negative counts and times, and more terminals or
// connections than a driver holds.
func (o *RunOptions) validateCounts() error {
	checks := []struct {
		bad bool
		err *field.Error
	}{
		{o.Warehouses < 0, field.New("Warehouses", o.Warehouses, "{} %d is negative", o.Warehouses)},
		{o.Terminals < 0, field.New("Terminals", o.Terminals, "{} %d is negative; use 1 or more (0 = default)", o.Terminals)},
		{o.Conns < 0, field.New("Conns", o.Conns, "{} %d is negative; use 1 or more (0 = default)", o.Conns)},
		{o.DeliveryWorkers < 0, field.New("DeliveryWorkers", o.DeliveryWorkers, "{} %d is negative", o.DeliveryWorkers)},
		{o.Duration < 0, field.New("Duration", o.Duration, "{} %v is negative", o.Duration)},
		{o.Ramp < 0, field.New("Ramp", o.Ramp, "{} %v is negative", o.Ramp)},
		{o.TxnsPerTerminal < 0, field.New("TxnsPerTerminal", o.TxnsPerTerminal, "{} %d is negative", o.TxnsPerTerminal)},
		{o.StopAtTxns < 0, field.New("StopAtTxns", o.StopAtTxns, "{} %d is negative; use a total over all terminals (0 = no limit)", o.StopAtTxns)},
		{o.Rate < 0, field.New("Rate", o.Rate, "{} %v is negative; transactions per minute, 0 = unlimited", o.Rate)},
		{o.KeyingScale < 0, field.New("KeyingScale", o.KeyingScale, "keying scale %v is negative", o.KeyingScale)},
		{o.Progress < 0, field.New("Progress", o.Progress, "{} %v is negative", o.Progress)},
		{o.Terminals > 1000000, field.New("Terminals", o.Terminals, "{} %d: at most 1000000", o.Terminals)},
		{o.Conns > 10000, field.New("Conns", o.Conns, "{} %d: at most 10000", o.Conns)},
	}
	for _, c := range checks {
		if c.bad {
			return c.err
		}
	}
	return nil
}

// ErrBadOption marks an option that does not fit the loaded database (found
// only once the number of loaded warehouses is known).
var ErrBadOption = errors.New("bad run option")

// Resolve fills the defaults that depend on the number of loaded warehouses
// and refuses what cannot give a sound run; errors wrap ErrBadOption. Run
// calls it; callers may call it first to refuse before doing other work.
func (o *RunOptions) Resolve(loaded int) error {
	bad := func(name string, value any, format string, args ...any) error {
		return fmt.Errorf("%w: %w", ErrBadOption, field.New(name, value, format, args...))
	}
	if o.Warehouses == 0 {
		o.Warehouses = loaded
	}
	if o.Warehouses > loaded {
		return bad("Warehouses", o.Warehouses, "{} %d but the database holds %d; load more or use fewer", o.Warehouses, loaded)
	}
	first, count, err := o.Part.Range(o.Warehouses)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadOption, err)
	}
	o.homeFirst, o.homeCount = first, count
	if o.Terminals == 0 {
		o.Terminals = districtsPerWarehouse * count
	}
	// Every driven warehouse needs home terminals, or it gets no New-Order,
	// Order-Status, Delivery or Stock-Level of its own (clause 4.2.2).
	if o.Terminals < count {
		return bad("Terminals", o.Terminals, "{} %d cannot give each of %d warehouses a home terminal; use {Warehouses} %d to drive only the first %d, or more terminals",
			o.Terminals, count, o.Terminals, o.Terminals)
	}
	// Clause 2.8.1.1: each of a warehouse's ten terminals has its own
	// Stock-Level district; an eleventh would share one.
	if o.Mode == ModeSpec && o.Terminals > districtsPerWarehouse*count && !o.AllowNonCompliant {
		return bad("Terminals", o.Terminals, "{} %d is more than 10 per warehouse for %d warehouses: terminals would share Stock-Level districts (clause 2.8.1.1); use at most %d, or pass {AllowNonCompliant}",
			o.Terminals, count, districtsPerWarehouse*count)
	}
	if o.Conns == 0 {
		if o.Mode == ModeSpec {
			o.Conns = max(2, min(64, (o.Terminals+49)/50))
		} else {
			o.Conns = min(8, o.Terminals)
		}
	}
	if o.DeliveryWorkers == 0 {
		o.DeliveryWorkers = max(1, o.Conns/8)
	}
	o.DeliveryWorkers = min(o.DeliveryWorkers, count)
	if o.Duration == 0 && o.TxnsPerTerminal == 0 && o.StopAtTxns == 0 && o.Mode == ModeNoWait {
		o.Duration = time.Minute
	}
	return nil
}

// homes returns the home warehouses: homeFirst and homeCount once Resolve
// ran, else 1..Warehouses.
func (o RunOptions) homes() (first, count int) {
	if o.homeCount == 0 {
		return 1, o.Warehouses
	}
	return o.homeFirst, o.homeCount
}

// Describe lists every parameter that produced a result, one "name value" per
// entry, in a stable order.
func (o RunOptions) Describe() [][2]string {
	d := [][2]string{
		{"path", o.Path}, {"mode", o.Mode}, {"warehouses", fmt.Sprint(o.Warehouses)},
		{"terminals", fmt.Sprint(o.Terminals)}, {"conns", fmt.Sprint(o.Conns)},
		{"delivery_workers", fmt.Sprint(o.DeliveryWorkers)},
		{"duration", o.Duration.String()}, {"ramp", o.Ramp.String()},
		{"txns_per_terminal", fmt.Sprint(o.TxnsPerTerminal)}, {"stop_at_txns", fmt.Sprint(o.StopAtTxns)},
		{"rate_per_min", fmt.Sprint(o.Rate)},
		{"weights", weightsString(o.Weights)}, {"max_retries", fmt.Sprint(o.MaxRetries)},
		{"isolation", o.Isolation}, {"keying_scale", fmt.Sprint(o.KeyingScale)},
		{"seed", fmt.Sprint(o.Seed)}, {"schema", o.schemaNames()},
		{"driver_procs", fmt.Sprint(runtime.GOMAXPROCS(0))},
		{"allow_noncompliant", fmt.Sprint(o.AllowNonCompliant)},
	}
	if o.Reads.On() {
		d = append(d, [2]string{"reads", o.Reads.Names()})
	}
	if !o.Part.Whole() {
		d = append(d, [2]string{"part", o.Part.String()},
			[2]string{"home_warehouses", fmt.Sprintf("%d-%d", o.homeFirst, o.homeFirst+o.homeCount-1)})
	}
	return d
}

func weightsString(weights []int) string {
	s := make([]string, len(weights))
	for i, w := range weights {
		s[i] = fmt.Sprint(w)
	}
	return strings.Join(s, ",")
}

// schemaNames is the schema, or the schemas, the options drive.
func (o RunOptions) schemaNames() string {
	if len(o.Schemas) > 0 {
		return strings.Join(o.Schemas, ",")
	}
	if o.Schema == "" {
		return DefaultSchema
	}
	return o.Schema
}

// AllConns is how many connections the terminals share over all schemas
// (0 = the default, not yet resolved).
func (o RunOptions) AllConns() int { return o.Conns * max(1, len(o.Schemas)) }
