package tpcc

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/measure"
	"github.com/pgoltp/pgoltp/internal/metrics"
)

// ErrNotComplete says the database holds an interrupted load.
var ErrNotComplete = errors.New("the TPC-C load in this schema is incomplete")

// runner is the state of one Run on one schema.
type runner struct {
	opts     RunOptions
	loaded   int // warehouses in the database; opts.Warehouses of them are driven
	pool     *driver.Pool
	rec      *metrics.Recorder
	stop     context.Context // terminals start no new transaction once done
	exec     context.Context // in-flight transactions and queued Deliveries; outlives stop by a grace period
	work     chan *request
	inline   bool // terminals ≤ connections: each terminal runs on its own connection
	delivery []*deliveryWorker
	dlog     *deliveryLog
	dlogTag  string // "schema=NAME " before each delivery log line when several schemas share the log
	errors   errorLog
	budget   *measure.Budget // --stop-at-txns; nil = none

	// Reads on standbys (run_reads.go): the standbys' connections, the
	// reads each standby completed from measureFrom, the end of ramp-up.
	reads       *driver.Pool
	readCounts  []atomic.Int64
	measureFrom time.Time
}

// schemaRun is one schema of a run: its runner, random source, C_RUN, result,
// and the connection that read its meta.
type schemaRun struct {
	r            *runner
	master       *Rand
	cRun         Constants
	res          *RunResult
	admin        *pgx.Conn
	notCompleted atomic.Int64 // Deliveries still queued when the grace period ended
}

// Grace periods after the terminals stop: in-flight transactions and queued
// Deliveries may finish within them (shorter when the user interrupted).
const (
	graceNormal      = 60 * time.Second
	graceInterrupted = 10 * time.Second
)

// Run drives the TPC-C database at dsn (loaded by Load) as opts say and
// returns the measured result. Cancelling ctx (Ctrl-C) stops the run cleanly:
// the result is still returned, with Interrupted set. An error is returned
// only when the run could not start (bad options, no load, cannot connect).
//
// With opts.Schemas, every schema is driven at once as its own TPC-C
// database, on one clock: the result merges them (rates summed, latencies
// from the merged histograms) and holds each schema's own in Schemas.
func Run(ctx context.Context, dsn string, opts RunOptions) (*RunResult, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Seed == 0 {
		var b [8]byte
		_, _ = crand.Read(b[:])
		opts.Seed = binary.LittleEndian.Uint64(b[:]) | 1
	}
	if len(opts.Schemas) == 0 {
		p, err := openSchemaRun(ctx, dsn, opts, newDeliveryLog(opts.DeliveryLog), "")
		if err != nil {
			return nil, err
		}
		defer p.admin.Close(context.WithoutCancel(ctx))
		if err := passStartGate(ctx, opts, []*schemaRun{p}); err != nil {
			return nil, err
		}
		return driveWatched(ctx, []*schemaRun{p}, nil)
	}
	// Each schema gets a seed of its own, drawn from the run's.
	seeds := NewRand(opts.Seed)
	dlog := newDeliveryLog(opts.DeliveryLog) // one file, a line's schema in its tag
	var schemas []*schemaRun
	defer func() {
		for _, p := range schemas {
			p.admin.Close(context.WithoutCancel(ctx))
		}
	}()
	for _, s := range opts.Schemas {
		o := opts
		o.Schema, o.Schemas, o.Seed = s, nil, seeds.Uint64()|1
		p, err := openSchemaRun(ctx, dsn, o, dlog, "schema="+s+" ")
		if err != nil {
			for _, q := range schemas {
				q.r.closePools()
			}
			return nil, inSchema(err, s, opts.Schemas)
		}
		schemas = append(schemas, p)
	}
	if err := passStartGate(ctx, opts, schemas); err != nil {
		return nil, err
	}
	return driveWatched(ctx, schemas, mergedResult(opts, schemas))
}

// driveWatched is drive with, for reads on standbys, the lag the standbys'
// reads see sampled around it and the read/write split in the result.
func driveWatched(ctx context.Context, schemas []*schemaRun, merged *RunResult) (*RunResult, error) {
	lag, err := schemas[0].r.opts.Reads.WatchLag(ctx)
	if err != nil {
		for _, p := range schemas {
			p.r.closePools()
		}
		return nil, err
	}
	whole := drive(ctx, schemas, merged)
	whole.Split = readSplit(schemas, whole, lag.Stop())
	return whole, nil
}

// passStartGate waits at opts.StartGate (a group's agreed start), once the
// connections are open, so that the terminals start at the agreed time and
// not after their connection set-up. An error closes the connections.
func passStartGate(ctx context.Context, opts RunOptions, schemas []*schemaRun) error {
	if opts.StartGate == nil {
		return nil
	}
	if err := opts.StartGate(ctx); err != nil {
		for _, p := range schemas {
			p.r.closePools()
		}
		return err
	}
	return nil
}

// openSchemaRun reads the schema's load, resolves the options against it, and
// opens its connections.
func openSchemaRun(ctx context.Context, dsn string, opts RunOptions, dlog *deliveryLog, dlogTag string) (*schemaRun, error) {
	cfg, err := ConnConfig(dsn, opts.Schema)
	if err != nil {
		return nil, err
	}
	cfg.RuntimeParams["application_name"] = "pgoltp tpcc run"
	cfg.RuntimeParams["default_transaction_isolation"] = isolationLevels[opts.Isolation]
	if opts.Pooled {
		unpooledParams(cfg)
	}

	admin, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err != nil {
		return nil, fmt.Errorf("connecting: %w", err)
	}
	p := &schemaRun{admin: admin}
	fail := func(err error) (*schemaRun, error) {
		admin.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	if opts.Pooled {
		if err := checkPooledDefaults(ctx, admin, opts); err != nil {
			return fail(err)
		}
	}
	meta, err := ReadMeta(ctx, admin)
	if err != nil {
		return fail(err)
	}
	if !meta.Complete {
		return fail(ErrNotComplete)
	}
	if err := opts.Resolve(meta.Warehouses); err != nil {
		return fail(err)
	}
	p.master = NewRand(opts.Seed)
	p.cRun = NewRunConstants(meta.Load, p.master)
	if opts.Path == PathServer {
		if err := InstallFunctions(ctx, admin); err != nil {
			return fail(err)
		}
	}

	r := &runner{opts: opts, loaded: meta.Warehouses, work: make(chan *request), dlog: dlog, dlogTag: dlogTag,
		budget: measure.NewBudget(opts.StopAtTxns)}
	r.rec = metrics.NewRecorder(kindNames(), counterNames()...)
	r.pool, err = driver.NewPool(ctx, driver.PoolOptions{
		Size:     opts.Conns + opts.DeliveryWorkers,
		Recorder: r.rec,
		Connect:  func(ctx context.Context) (*pgx.Conn, error) { return pgx.ConnectConfig(ctx, cfg.Copy()) },
		Setup: func(ctx context.Context, c *driver.Conn) error {
			c.State = &session{conn: c.PG, slOwnTxn: opts.Isolation != "read-committed"}
			return nil
		},
	})
	if err != nil {
		return fail(fmt.Errorf("opening %d connections: %w", opts.Conns+opts.DeliveryWorkers, err))
	}
	if err := r.openReads(ctx, opts); err != nil {
		r.pool.Close()
		return fail(err)
	}
	p.r = r
	p.res = &RunResult{Options: opts, Params: opts.Describe(), CRun: p.cRun, CLoad: meta.Load, Kinds: kindNames(),
		LoadedWarehouses: meta.Warehouses}
	return p, nil
}

// startWorkers starts the schema's delivery workers and, when terminals hand
// their transactions over, its connection workers.
func (p *schemaRun) startWorkers(dwg, cwg *sync.WaitGroup) {
	r := p.r
	for range r.opts.DeliveryWorkers {
		r.delivery = append(r.delivery, &deliveryWorker{
			queue: make(chan deliveryRequest, deliveryQueueDepth), queueLocal: r.rec.NewLocal()})
	}
	for _, dw := range r.delivery {
		dwg.Add(1)
		go func() { defer dwg.Done(); r.runDeliveryWorker(dw, &p.notCompleted) }()
	}
	r.inline = r.opts.Terminals <= r.opts.Conns
	for range r.opts.Conns {
		if r.inline {
			break
		}
		cwg.Add(1)
		go func() { defer cwg.Done(); r.connWorker() }()
	}
}

// drive runs every schema's terminals, connection workers and delivery workers
// on one clock, aggregates once per second, and stops on duration, on the
// terminals' own end, or on ctx. With several schemas, merged is the result
// they add up to (returned, with theirs in Schemas); with one, its own
// result is returned.
func drive(ctx context.Context, schemas []*schemaRun, merged *RunResult) *RunResult {
	opts := schemas[0].r.opts // duration and ramp-up are the same for all schemas
	stop, stopRun := context.WithCancel(ctx)
	defer stopRun()
	exec, endExec := context.WithCancel(context.WithoutCancel(ctx))
	defer endExec()
	var dwg, cwg sync.WaitGroup
	usageStart := driver.ReadProcessUsage()
	start := time.Now()
	rampEnd := start.Add(opts.Ramp)
	for _, p := range schemas {
		p.r.stop, p.r.exec, p.r.measureFrom = stop, exec, rampEnd
		p.startWorkers(&dwg, &cwg)
	}
	agg := newTally(schemas, merged, start, rampEnd) // starts the first interval now
	twg, terminalsDone := startTerminals(schemas, start)
	stopReason, interrupted := waitForStop(ctx, schemas, opts, agg, terminalsDone)
	stopRun()
	grace := graceNormal
	if interrupted {
		grace = graceInterrupted
	}
	graceTimer := time.AfterFunc(grace, endExec)
	defer graceTimer.Stop()
	twg.Wait()
	cwg.Wait()
	terminalsEnd := time.Now()
	usageEnd := driver.ReadProcessUsage()
	agg.interval(true) // the terminals' last transactions close the measurement
	for _, p := range schemas {
		for _, dw := range p.r.delivery {
			close(dw.queue)
		}
	}
	dwg.Wait()
	agg.drainDeliveries()
	for _, p := range schemas {
		p.r.dlog.flush()
	}
	end := time.Now()
	whole := collectResults(schemas, merged, interrupted, stopReason, terminalsEnd, end)
	// The driver's CPU is the process's: it goes to the run as a whole.
	whole.DriverCPU, whole.DriverPeakRSS = usageEnd.CPU-usageStart.CPU, usageEnd.PeakRSS
	agg.finish()
	return whole
}

// startTerminals starts every schema's terminals on the run's clock; done is
// closed when they have all ended on their own (txns-per-terminal,
// stop-at-txns) or been stopped.
func startTerminals(schemas []*schemaRun, start time.Time) (twg *sync.WaitGroup, done chan struct{}) {
	twg = new(sync.WaitGroup)
	for _, p := range schemas {
		for i := range p.r.opts.Terminals {
			t := p.r.newTerminal(i, p.master.Uint64(), p.cRun, start)
			twg.Add(1)
			go func() { defer twg.Done(); p.r.terminalLoop(t) }()
		}
	}
	done = make(chan struct{})
	go func() { twg.Wait(); close(done) }()
	return twg, done
}

// waitForStop aggregates once per second until the run ends: on duration,
// on the terminals' own end or on ctx; it says why.
func waitForStop(ctx context.Context, schemas []*schemaRun, opts RunOptions, agg *tally, terminalsDone <-chan struct{}) (stopReason string, interrupted bool) {
	var end time.Duration
	if opts.Duration > 0 {
		end = opts.Ramp + opts.Duration
	}
	switch measure.Wait(ctx, time.Second, end, terminalsDone, func() { agg.interval(false) }) {
	case measure.StopDuration:
		return "duration reached", false
	case measure.StopInterrupted:
		return "interrupted", true
	}
	for _, p := range schemas {
		if p.r.budget.Spent() {
			return "stop-at-txns reached", false
		}
	}
	return "txns-per-terminal reached", false
}

// collectResults fills each schema's result with how the run ended; with
// several schemas, merged adds them up (returned, with theirs in Schemas),
// else the one schema's result is returned.
func collectResults(schemas []*schemaRun, merged *RunResult, interrupted bool, stopReason string, terminalsEnd, end time.Time) *RunResult {
	results := make([]*RunResult, len(schemas))
	for i, p := range schemas {
		res := p.res
		results[i] = res
		res.Interrupted, res.StopReason, res.TerminalsEnd, res.End = interrupted, stopReason, terminalsEnd, end
		res.Outages = p.r.closePools()
		res.Errors = p.r.errors.list()
		res.DeliveriesNotCompleted = p.notCompleted.Load()
	}
	// The whole run: the merged result, or the one schema's.
	whole := results[0]
	if merged != nil {
		whole = merged
		whole.Interrupted, whole.StopReason, whole.TerminalsEnd, whole.End = interrupted, stopReason, terminalsEnd, end
		whole.Schemas = results
		whole.Errors = mergeErrors(results)
		for _, r := range results {
			whole.Outages = append(whole.Outages, r.Outages...)
			whole.DeliveriesNotCompleted += r.DeliveriesNotCompleted
		}
	}
	return whole
}

// newTerminal places terminal i: home warehouse i mod W + 1 (offset to the
// part's range in a group) and Stock-Level
// district ⌊i/W⌋ mod 10 + 1, so with the default 10 terminals per warehouse
// every driven warehouse has ten terminals with districts 1..10 (clauses
// 4.2.2, 2.8.1.1), and any count spreads evenly. Remote warehouses are drawn
// from all loaded warehouses.
func (r *runner) newTerminal(i int, seed uint64, cRun Constants, start time.Time) *terminal {
	first, count := r.opts.homes()
	w, sl := terminalHome(i, first, count)
	t := &terminal{
		id: i, w: w, slDistrict: sl, warehouses: r.loaded,
		rand: NewRand(seed), c: cRun,
		sched: measure.NewSchedule(r.opts.Rate, i, r.opts.Terminals, start),
	}
	t.deck, _ = driver.NewDeck(r.opts.Weights, func(n int) int { return t.rand.IntRange(0, n-1) })
	t.req = request{t: t, reply: make(chan struct{}, 1)}
	return t
}

// terminalHome returns terminal i's home warehouse and Stock-Level district
// when warehouses first..first+driven-1 are driven (a part of a group drives
// its own range; the whole run drives 1..driven).
func terminalHome(i, first, driven int) (w, slDistrict int) {
	return first + i%driven, (i/driven)%districtsPerWarehouse + 1
}
