package tpcb

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/measure"
	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/pgbench"
)

// A run is pgoltp pgbench's engine (internal/pgbench) running the built-in
// script, with tpcb's connections (reads.go), clock, schedule (--rate,
// --phases), --stop-at-txns budget, key ranges (--part: the script's own
// \set bid) and reconnections (reconnect.go) given to it as hooks
// (pgbench.Drive), and its measures counted here (tally).

// Protocol is how statements are sent, as pgbench's -M/--protocol.
type Protocol string

const (
	ProtocolSimple   Protocol = "simple"   // one Query message, values inlined
	ProtocolExtended Protocol = "extended" // Parse/Bind/Execute of an unnamed statement every time
	ProtocolPrepared Protocol = "prepared" // named statements prepared once per connection
)

// Recorder kinds: the transaction, then one per statement, then the
// schedule lag (--rate).
const kindTxn = 0

func kindStmt(i int) int { return 1 + i }

// Counters recorded per kind. On the transaction kind: failed transactions,
// total retries, transactions retried at least once, skipped, late; on a
// statement: the failures and retries that happened at it.
const (
	cntFailures = iota
	cntRetries
	cntRetried
	cntSkipped
	cntLate
)

var counterNames = []string{"failures", "retries", "retried", "skipped", "late"}

func kindNames(def *scriptDef) []string {
	k := []string{"transaction"}
	for _, s := range def.stmts {
		k = append(k, s.name)
	}
	return append(k, "schedule_lag")
}

func kindLag(def *scriptDef) int { return len(def.stmts) + 1 }

// tally is one client's measures: the engine's sink (pgbench.Sink), called
// from the client's loop only, recording into the client's metrics.Local.
type tally struct {
	local   *metrics.Local
	lagKind int
	limit   time.Duration // --latency-limit: late above it
	commits int64         // the read/write split counts them per node
}

func newTally(local *metrics.Local, def *scriptDef, opts RunOptions) *tally {
	return &tally{local: local, lagKind: kindLag(def), limit: opts.LatencyLimit}
}

// newTallies are n clients' tallies, each with a metrics.Local of rec.
func newTallies(rec *metrics.Recorder, n int, def *scriptDef, opts RunOptions) []*tally {
	tallies := make([]*tally, n)
	for i := range tallies {
		tallies[i] = newTally(rec.NewLocal(), def, opts)
	}
	return tallies
}

// Statement records that statement i of the script succeeded in d.
func (t *tally) Statement(i int, d time.Duration) { t.local.Record(kindStmt(i), d) }

// Retry counts a try that failed at statement i and is run again.
func (t *tally) Retry(i int) {
	t.local.Add(kindTxn, cntRetries, 1)
	t.local.Add(kindStmt(i), cntRetries, 1)
}

// Transaction records a transaction's end: skipped, failed after its
// tries, or committed (late above the latency limit).
func (t *tally) Transaction(x pgbench.Tx) {
	if x.Skipped {
		t.local.Add(kindTxn, cntSkipped, 1)
		return
	}
	if x.Paced {
		t.local.Record(t.lagKind, x.Lag)
	}
	if x.Tries > 1 {
		t.local.Add(kindTxn, cntRetried, 1)
	}
	if x.Failed {
		t.local.Add(kindTxn, cntFailures, 1)
		t.local.Add(kindStmt(x.At), cntFailures, 1)
		return
	}
	t.local.Record(kindTxn, x.Latency)
	if t.limit > 0 && x.Latency > t.limit {
		t.local.Add(kindTxn, cntLate, 1)
	}
	t.commits++
}

// runEngine runs the clients on their connections from start to their end
// and returns each client's error.
func runEngine(ctx context.Context, conns []*pgconn.PgConn, tallies []*tally, def *scriptDef, sp space, opts RunOptions, start, deadline time.Time, rc *reconnector) ([]error, error) {
	d := &pgbench.Drive{
		Scripts:   []pgbench.Script{{Desc: def.desc, Text: def.script(sp), Weight: 1, Builtin: true}},
		QueryMode: string(opts.Protocol), Jobs: opts.Jobs, Transactions: opts.Transactions,
		MaxTries: max(opts.MaxTries, 0), LatencyLimit: opts.LatencyLimit, RandomSeed: opts.Seed, Scale: int(sp.scale),
		Start: start, Deadline: deadline, Conns: conns, Reconnect: rc.reconnect,
	}
	for i, t := range tallies {
		d.Sinks = append(d.Sinks, t)
		if s := schedule(opts, i, start); s != nil {
			d.Schedules = append(d.Schedules, s)
		}
	}
	if opts.budget != nil {
		d.Budget = opts.budget
	}
	return d.Run(ctx)
}

// schedule is client id's --rate (or --phases) Poisson schedule from
// start, nil without a rate.
func schedule(opts RunOptions, id int, start time.Time) *measure.Poisson {
	rng := rand.New(rand.NewPCG(opts.Seed, uint64(id)))
	switch {
	case len(opts.RatePhases) > 0:
		return measure.NewPoissonPhases(opts.RatePhases, opts.Clients, start, rng)
	case opts.Rate > 0:
		return measure.NewPoisson(opts.Rate, opts.Clients, start, rng)
	}
	return nil
}
