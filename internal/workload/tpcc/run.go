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
	"github.com/pgoltp/pgoltp/internal/metrics"
)

// ErrNotComplete says the database holds an interrupted load.
var ErrNotComplete = errors.New("the TPC-C load in this schema is incomplete")

// runner is the state of one Run.
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
	errors   errorLog
	budget   *driver.Budget // --stop-at-txns; nil = none
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
func Run(ctx context.Context, dsn string, opts RunOptions) (*RunResult, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	cfg, err := ConnConfig(dsn, opts.Schema)
	if err != nil {
		return nil, err
	}
	cfg.RuntimeParams["application_name"] = "pgoltp tpcc run"
	cfg.RuntimeParams["default_transaction_isolation"] = isolationLevels[opts.Isolation]

	admin, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err != nil {
		return nil, fmt.Errorf("connecting: %w", err)
	}
	defer admin.Close(context.WithoutCancel(ctx))
	meta, err := ReadMeta(ctx, admin)
	if err != nil {
		return nil, err
	}
	if !meta.Complete {
		return nil, ErrNotComplete
	}
	if err := opts.Resolve(meta.Warehouses); err != nil {
		return nil, err
	}
	if opts.Seed == 0 {
		var b [8]byte
		_, _ = crand.Read(b[:])
		opts.Seed = binary.LittleEndian.Uint64(b[:]) | 1
	}
	master := NewRand(opts.Seed)
	cRun := NewRunConstants(meta.Load, master)
	if opts.Path == PathServer {
		if err := InstallFunctions(ctx, admin); err != nil {
			return nil, err
		}
	}

	r := &runner{opts: opts, loaded: meta.Warehouses, work: make(chan *request), dlog: newDeliveryLog(opts.DeliveryLog),
		budget: driver.NewBudget(opts.StopAtTxns)}
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
		return nil, fmt.Errorf("opening %d connections: %w", opts.Conns+opts.DeliveryWorkers, err)
	}

	res := &RunResult{Options: opts, Params: opts.Describe(), CRun: cRun, CLoad: meta.Load, Kinds: kindNames(),
		LoadedWarehouses: meta.Warehouses}
	return r.drive(ctx, master, cRun, res), nil
}

// drive runs terminals, connection workers and delivery workers, aggregates
// once per second, and stops on duration, on the terminals' own end, or on ctx.
func (r *runner) drive(ctx context.Context, master *Rand, cRun Constants, res *RunResult) *RunResult {
	opts := r.opts
	stop, stopRun := context.WithCancel(ctx)
	defer stopRun()
	exec, endExec := context.WithCancel(context.WithoutCancel(ctx))
	defer endExec()
	r.stop, r.exec = stop, exec

	var notCompleted atomic.Int64
	dwg, cwg := r.startWorkers(&notCompleted)

	r.rec.Interval() // start the first interval now
	usageStart := driver.ReadProcessUsage()
	start := time.Now()
	rampEnd := start.Add(opts.Ramp)
	var twg sync.WaitGroup
	for i := range opts.Terminals {
		t := r.newTerminal(i, master.Uint64(), cRun, start)
		twg.Add(1)
		go func() { defer twg.Done(); r.terminalLoop(t) }()
	}
	terminalsDone := make(chan struct{})
	go func() { twg.Wait(); close(terminalsDone) }()

	agg := newAggregator(r, res, start, rampEnd)
	r.waitForEnd(ctx, agg, terminalsDone, res)
	stopRun()
	grace := graceNormal
	if res.Interrupted {
		grace = graceInterrupted
	}
	graceTimer := time.AfterFunc(grace, endExec)
	defer graceTimer.Stop()
	twg.Wait()
	cwg.Wait()
	res.TerminalsEnd = time.Now()
	usageEnd := driver.ReadProcessUsage()
	res.DriverCPU, res.DriverPeakRSS = usageEnd.CPU-usageStart.CPU, usageEnd.PeakRSS
	agg.interval(true) // the terminals' last transactions close the measurement
	for _, dw := range r.delivery {
		close(dw.queue)
	}
	dwg.Wait()
	agg.drainDeliveries()
	r.dlog.flush()
	res.End = time.Now()
	res.Outages = r.pool.Close()
	res.Errors = r.errors.list()
	res.DeliveriesNotCompleted = notCompleted.Load()
	agg.finish()
	return res
}

// startWorkers starts the delivery workers and, unless each terminal has a
// connection of its own, the connection workers.
func (r *runner) startWorkers(notCompleted *atomic.Int64) (deliveries, conns *sync.WaitGroup) {
	opts := r.opts
	deliveries, conns = &sync.WaitGroup{}, &sync.WaitGroup{}
	for range opts.DeliveryWorkers {
		r.delivery = append(r.delivery, &deliveryWorker{
			queue: make(chan deliveryRequest, deliveryQueueDepth), queueLocal: r.rec.NewLocal()})
	}
	for _, dw := range r.delivery {
		deliveries.Add(1)
		go func() { defer deliveries.Done(); r.runDeliveryWorker(dw, notCompleted) }()
	}
	r.inline = opts.Terminals <= opts.Conns
	for range opts.Conns {
		if r.inline {
			break
		}
		conns.Add(1)
		go func() { defer conns.Done(); r.connWorker() }()
	}
	return deliveries, conns
}

// waitForEnd aggregates once per second until the duration, the terminals'
// own end or ctx ends the run, and says which in res.
func (r *runner) waitForEnd(ctx context.Context, agg *aggregator, terminalsDone <-chan struct{}, res *RunResult) {
	opts := r.opts
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var endC <-chan time.Time
	if opts.Duration > 0 {
		endTimer := time.NewTimer(opts.Ramp + opts.Duration)
		defer endTimer.Stop()
		endC = endTimer.C
	}
	res.StopReason = "txns-per-terminal reached"
loop:
	for {
		select {
		case <-tick.C:
			agg.interval(false)
		case <-endC:
			res.StopReason = "duration reached"
			break loop
		case <-terminalsDone:
			if r.budget.Spent() {
				res.StopReason = "stop-at-txns reached"
			}
			break loop
		case <-ctx.Done():
			res.Interrupted = true
			res.StopReason = "interrupted"
			break loop
		}
	}
}

// newTerminal places terminal i: home warehouse i mod W + 1 and Stock-Level
// district ⌊i/W⌋ mod 10 + 1, so with the default 10 terminals per warehouse
// every driven warehouse has ten terminals with districts 1..10 (clauses
// 4.2.2, 2.8.1.1), and any count spreads evenly. Remote warehouses are drawn
// from all loaded warehouses.
func (r *runner) newTerminal(i int, seed uint64, cRun Constants, start time.Time) *terminal {
	w, sl := terminalHome(i, r.opts.Warehouses)
	t := &terminal{
		id: i, w: w, slDistrict: sl, warehouses: r.loaded,
		rand: NewRand(seed), c: cRun,
		sched: driver.NewSchedule(r.opts.Rate, i, r.opts.Terminals, start),
	}
	t.deck, _ = driver.NewDeck(r.opts.Weights, func(n int) int { return t.rand.IntRange(0, n-1) })
	t.req = request{t: t, reply: make(chan struct{}, 1)}
	return t
}

// terminalHome returns terminal i's home warehouse and Stock-Level district
// when warehouses 1..driven are driven.
func terminalHome(i, driven int) (w, slDistrict int) {
	return i%driven + 1, (i/driven)%districtsPerWarehouse + 1
}
