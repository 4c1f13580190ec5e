package pgbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/pgbench/lang"
)

// Drive runs scripts on the engine for a caller that connects, schedules
// and counts its own way (`pgoltp tpcb run`): the engine's clients, loops,
// script semantics, retries and PRNG, with five hooks where pgbench has its
// own way. `pgoltp pgbench` sets none of them, and its path is unchanged.
type Drive struct {
	Scripts      []Script // their statements' numbers (Sink's sql) count from 0 over all of them
	QueryMode    string   // simple, extended, prepared
	Jobs         int      // thread loops, at most len(Conns)
	Transactions int      // per client; 0: until Deadline (or Budget)
	MaxTries     int      // pgbench's --max-tries: 0 = unlimited
	LatencyLimit time.Duration
	RandomSeed   uint64
	Scale        int // :scale
	Vars         []Var
	// Start is the run's clock: latencies and schedules count from it.
	// Deadline (zero: none) is -T's end: no transaction starts after it.
	Start, Deadline time.Time
	// Conns are the clients' connections, one per client, open and idle,
	// each to the server the caller chose for it; the engine takes them
	// over and closes them.
	Conns []*pgconn.PgConn
	// Sinks get each client's measures (one per client; nil: none).
	Sinks []Sink
	// Schedules, when set, give each client's transactions' due times in
	// place of -R's (one per client, as measure.Poisson does).
	Schedules []Schedule
	// Budget, when set, is asked before every transaction (skipped ones
	// too) and ends the client when it says no (measure.Budget).
	Budget interface{ Take() bool }
	// Reconnect, when set, is given a client whose connection was lost
	// (its transaction is then in doubt) and returns a new one, or nil
	// when the run ended meanwhile, or an error that aborts the client. It
	// runs in a goroutine of its own: the client's loop goes on with the
	// others. Without it a lost connection aborts the client, as pgbench's.
	Reconnect func(ctx context.Context, client int, lost error) (*pgconn.PgConn, error)
	// Stderr gets pgbench's messages (a client's abort); nil: none.
	Stderr io.Writer
}

// Sink gets one client's measures from its loop's goroutine, so it needs
// no lock; it must not keep or allocate per call.
type Sink interface {
	// Statement: SQL statement sql succeeded in d.
	Statement(sql int, d time.Duration)
	// Retry: a try failed at SQL statement sql and the transaction runs
	// again.
	Retry(sql int)
	// Transaction: a transaction ended.
	Transaction(t Tx)
}

// Tx is how one transaction ended.
type Tx struct {
	Latency time.Duration // from when it was due to its end
	Lag     time.Duration // from when it was due to its start (with Schedules or -R)
	Paced   bool          // Lag is set
	Tries   int
	Skipped bool // already later than LatencyLimit when due: not run
	Failed  bool // a serialization failure or deadlock after its last try
	At      int  // Failed: the SQL statement of the last failure
}

// Schedule is one client's due times: each Take is the next.
type Schedule interface{ Take() time.Time }

// Run runs the clients until each has done its Transactions, or Deadline,
// Budget or ctx ends them, and returns each client's error: why it
// aborted, ctx's error when the run was interrupted, nil when it finished.
func (d *Drive) Run(ctx context.Context) ([]error, error) {
	if len(d.Conns) == 0 || d.Jobs < 1 || d.Jobs > len(d.Conns) {
		d.closeConns(0)
		return nil, fmt.Errorf("pgbench: %d jobs for %d clients", d.Jobs, len(d.Conns))
	}
	o := defaults()
	o.Scripts, o.QueryMode, o.Clients, o.Jobs = d.Scripts, d.QueryMode, len(d.Conns), d.Jobs
	o.Transactions, o.MaxTries, o.LatencyLimitUs = d.Transactions, d.MaxTries, d.LatencyLimit.Microseconds()
	o.RandomSeed, o.Vars, o.NoVacuum = d.RandomSeed, d.Vars, true
	stderr := d.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	e := &engine{o: o, env: Env{Stderr: stderr, Stdout: io.Discard}, log: logger{w: stderr}, drive: d,
		table: TableInfo{Scale: d.Scale}}
	if err := e.parseScripts(); err != nil {
		d.closeConns(0)
		return nil, errors.New("pgbench: the scripts do not parse or do not fit the query mode")
	}
	if err := e.makeDriveClients(ctx); err != nil {
		return nil, err
	}
	e.interrupted = ctx.Done()
	e.driveBench(ctx)
	errs := make([]error, len(e.clients))
	for i, c := range e.clients {
		switch {
		case c.interrupted && ctx.Err() != nil:
			errs[i] = ctx.Err()
		case c.aborted:
			errs[i] = c.err
			if errs[i] == nil {
				errs[i] = errors.New("aborted")
			}
		}
	}
	return errs, nil
}

// makeDriveClients seeds and deals the clients as run does, and gives each
// its connection and hooks.
func (e *engine) makeDriveClients(ctx context.Context) error {
	d := e.drive
	seeds := lang.NewSeeds(d.RandomSeed)
	rngs := make([]*lang.PRNG, len(d.Conns))
	for i := range rngs {
		rngs[i] = seeds.Next()
	}
	if err := e.makeClients(rngs, seeds, false); err != nil {
		d.closeConns(0)
		return err
	}
	for i, c := range e.clients {
		if i < len(d.Sinks) {
			c.sink = d.Sinks[i]
		}
		if i < len(d.Schedules) {
			c.schedule = d.Schedules[i]
		}
		if err := c.adopt(ctx, d.Conns[i]); err != nil {
			for _, o := range e.clients[:i] {
				o.disconnect()
			}
			d.closeConns(i + 1)
			return fmt.Errorf("taking over connection %d: %w", i, err)
		}
	}
	return nil
}

// closeConns closes the connections from the first not taken over.
func (d *Drive) closeConns(from int) {
	for _, pc := range d.Conns[from:] {
		_ = pc.Close(context.Background())
	}
}

// driveBench is bench for Drive: the caller's clock and deadline, no
// logs, progress or summary.
func (e *engine) driveBench(ctx context.Context) {
	d := e.drive
	e.start = d.Start
	e.epochStartUs = e.start.UnixMicro()
	benchStart := max(e.nowUs(), 0)
	for _, t := range e.threads {
		t.trigger = benchStart
	}
	if !d.Deadline.IsZero() {
		e.endUs = max(d.Deadline.Sub(e.start).Microseconds(), 1)
		timer := time.AfterFunc(time.Until(d.Deadline), e.stopClient)
		defer timer.Stop()
	}
	e.runLoops(ctx, e.blockingConns())
}
