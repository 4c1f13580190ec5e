package tpcb

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"golang.org/x/sync/errgroup"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/measure"
	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Run drives the script with opts.Clients connections until each has run
// opts.Transactions or opts.Duration has passed, like pgbench's run (or, with
// opts.StopAtTxns, until that many were run over all clients), then
// (unless opts.NoCheck) checks that balances and history moved together and
// that no committed transaction is missing.
//
// A client that hits an error other than a serialization failure or
// deadlock stops, as in pgbench; the run goes on with the others and the
// result lists the errors. Cancelling ctx ends the run early; the result
// then says Interrupted and has everything measured so far.
func Run(ctx context.Context, dsn string, opts RunOptions) (*RunResult, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	def, _ := opts.Script.def()
	opts.budget = measure.NewBudget(opts.StopAtTxns)
	cfgs, err := newClientConfigs(dsn, opts)
	if err != nil {
		return nil, err
	}

	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("connecting: %w", err)
	}
	defer admin.Close(context.Background())
	scale, err := readScale(ctx, admin)
	if err != nil {
		return nil, err
	}
	res := &RunResult{Options: opts, Description: def.desc, Scale: scale}
	before, err := prepareRun(ctx, admin, opts)
	if err != nil {
		return nil, err
	}

	rec := metrics.NewRecorder(kindNames(&def), counterNames...)
	sp, err := partSpace(opts.Part, scale, res)
	if err != nil {
		return nil, err
	}
	clients, lag, err := openClients(ctx, cfgs, opts, &def, sp, rec, res)
	if err != nil {
		return nil, err
	}
	defer closeClients(clients)
	defer lag.Stop()
	if opts.StartGate != nil {
		if err := opts.StartGate(ctx); err != nil {
			return nil, err
		}
	}

	usage0 := driver.ReadProcessUsage()
	start := time.Now()
	rec.Interval() // drop anything recorded while preparing
	meter := newMeter(rec, &def, opts, start)
	stopMeter := meter.Background()

	var deadline time.Time
	if opts.Duration > 0 {
		deadline = start.Add(opts.Duration)
	}
	books := newBooks(clients, &def, opts, start, deadline)
	rc := newReconnector(ctx, cfgs, len(clients), deadline)
	errs, looped, err := runClients(ctx, clients, books, rc, opts)
	res.Split = readSplit(opts.Reads, books, lag.Stop())
	if err != nil {
		stopMeter()
		return nil, err
	}
	rc.result(res)
	res.EventLoop = looped
	end := time.Now()
	stopMeter()

	res.Interrupted = ctx.Err() != nil
	res.fillMeasured(meter, &def, errs, start, end, usage0)

	// A part of a group does not check its own before/after sums: the other
	// parts' transactions move them too. The group's last part to finish
	// checks the whole database instead (Workload.Check).
	if !opts.NoCheck && !res.Interrupted && opts.Part.Whole() {
		if res.Check, err = checkAfter(ctx, admin, dsn, before, &def, res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// partSpace is the key space a run draws from: all of it, or for a part of
// a group its own range of branches (noted in res).
func partSpace(part workload.Part, scale int, res *RunResult) (space, error) {
	sp := wholeSpace(int64(scale))
	if !part.Whole() {
		first, count, err := part.Range(BranchesPerScale * scale)
		if err != nil {
			return sp, err
		}
		sp.bidFirst, sp.bidCount = int64(first), int64(count)
		res.Branches = fmt.Sprintf("%d-%d", first, first+count-1)
	}
	return sp, nil
}

// openClients connects the clients, once the standbys that take their
// reads (if any) have caught up with the primary, and starts sampling the
// standbys' lag.
func openClients(ctx context.Context, cfgs clientConfigs, opts RunOptions, def *scriptDef, sp space, rec *metrics.Recorder, res *RunResult) ([]*client, *workload.LagWatch, error) {
	if err := opts.Reads.CatchUp(ctx); err != nil {
		return nil, nil, err
	}
	clients, connectTime, err := connectClients(ctx, cfgs, opts, def, sp, rec)
	if err != nil {
		return nil, nil, err
	}
	res.ConnectTime = connectTime
	lag, err := opts.Reads.WatchLag(ctx)
	if err != nil {
		closeClients(clients)
		return nil, nil, err
	}
	return clients, lag, nil
}

// closeClients closes the connections the run left open.
func closeClients(clients []*client) {
	for _, c := range clients {
		if !c.conn.IsClosed() {
			_ = c.conn.Close(context.Background())
		}
	}
}

// fillMeasured fills res with the measured window from start to end, the
// driver's own cost since usage0, the clients' errors and the aggregated
// figures.
func (res *RunResult) fillMeasured(meter *measure.Meter, def *scriptDef, errs []error, start, end time.Time, usage0 driver.ProcessUsage) {
	usage := driver.ReadProcessUsage()
	res.Start, res.Elapsed = start, end.Sub(start)
	res.DriverCPU, res.PeakRSS = usage.CPU-usage0.CPU, usage.PeakRSS
	res.addClientErrors(errs)
	res.fillMeasures(meter, def)
	if res.Committed > 0 {
		res.DriverCPUPer1k = res.DriverCPU.Seconds() / (float64(res.Committed) / 1000)
	}
}

// newBooks opens each client's bookkeeping for a run from start.
func newBooks(clients []*client, def *scriptDef, opts RunOptions, start, deadline time.Time) []*book {
	books := make([]*book, len(clients))
	for i, c := range clients {
		books[i] = newBook(c.local, def, opts, i, start, deadline)
	}
	return books
}

// addClientErrors lists the clients that aborted, leaving out those only
// stopped by an interruption.
func (res *RunResult) addClientErrors(errs []error) {
	for i, e := range errs {
		if e != nil && !(res.Interrupted && (errors.Is(e, context.Canceled) || errors.Is(e, context.DeadlineExceeded))) {
			res.AbortedClients++
			res.Errors = append(res.Errors, fmt.Sprintf("client %d aborted: %v", i, e))
		}
	}
}

// clientConfig is the clients' connection: isolation, application name, and
// cancelling the statements in flight when ctx is cancelled.
func clientConfig(dsn string, opts RunOptions) (*pgconn.Config, error) {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("invalid DSN: %w", err)
	}
	if opts.Isolation != "" {
		cfg.RuntimeParams["default_transaction_isolation"] = isolationLevels[opts.Isolation]
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "pgoltp tpcb"
	}
	// Cancelling ctx (Ctrl-C) cancels the statements in flight on the
	// server too, rather than leaving them to run on a closed connection.
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: time.Second}
	}
	return cfg, nil
}

// prepareRun vacuums as pgbench does before a run and, unless NoCheck,
// reads the sums the check compares after it.
func prepareRun(ctx context.Context, admin *pgx.Conn, opts RunOptions) (before Sums, err error) {
	if !opts.NoVacuum {
		// pgbench vacuums these two before a run (it also truncates
		// pgbench_history; pgoltp keeps it, so that Check holds over the
		// database's whole life).
		steps := []string{"vacuum pgbench_branches", "vacuum pgbench_tellers"}
		if opts.TruncateHistory {
			steps = append(steps, "truncate pgbench_history")
		}
		for _, q := range steps {
			if _, err := admin.Exec(ctx, q); err != nil {
				return before, fmt.Errorf("%s: %w", q, err)
			}
		}
	}
	if !opts.NoCheck {
		return readSums(ctx, admin)
	}
	return before, nil
}

// runClients runs the clients to the end, on event loops unless
// GoroutinePerClient (or the platform has none), and returns each client's
// error.
func runClients(ctx context.Context, clients []*client, books []*book, rc *reconnector, opts RunOptions) (errs []error, looped bool, err error) {
	if !opts.GoroutinePerClient {
		if errs, looped, err = runLoops(ctx, clients, books, rc, opts); err != nil {
			return nil, false, err
		}
		rc.wg.Wait() // clients that lost their connection went on as goroutines
		for i := range errs {
			if rc.handed[i] {
				errs[i] = rc.errs[i]
			}
		}
	}
	if !looped {
		errs = make([]error, len(clients))
		var wg sync.WaitGroup
		for i, c := range clients {
			wg.Go(func() { errs[i] = rc.resume(i, c, books[i], c.loop(ctx, books[i])) })
		}
		wg.Wait()
	}
	return errs, looped, nil
}

// checkAfter reads the sums after the run, on a new connection when the
// server went away during it (a restart), and checks them against before.
func checkAfter(ctx context.Context, admin *pgx.Conn, dsn string, before Sums, def *scriptDef, res *RunResult) (*CheckResult, error) {
	after, err := readSums(ctx, admin)
	if err != nil && len(res.Outages) > 0 {
		var again *pgx.Conn
		if again, err = pgx.Connect(ctx, dsn); err == nil {
			defer again.Close(context.Background())
			after, err = readSums(ctx, again)
		}
	}
	if err != nil {
		return nil, err
	}
	return checkRun(before, after, def, res.Committed, res.InDoubt), nil
}

// ErrNotLoaded says the pgbench tables are missing or empty.
var ErrNotLoaded = errors.New("the pgbench tables are not loaded: run 'pgoltp tpcb load' (or pgbench -i) first")

// notLoaded turns "relation does not exist" into ErrNotLoaded.
func notLoaded(err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "42P01" {
		return ErrNotLoaded
	}
	return err
}

// connectClients opens and prepares every client's connection in parallel
// and returns how long that took.
func connectClients(ctx context.Context, cfgs clientConfigs, opts RunOptions, def *scriptDef, scale space, rec *metrics.Recorder) ([]*client, time.Duration, error) {
	t0 := time.Now()
	clients := make([]*client, opts.Clients)
	var g errgroup.Group
	for i := range clients {
		local := rec.NewLocal()
		g.Go(func() error {
			conn, err := pgconn.ConnectConfig(ctx, cfgs.of(i))
			if err != nil {
				return fmt.Errorf("connecting client %d: %w", i, err)
			}
			seed := opts.Seed + uint64(i)*0x9e3779b97f4a7c15
			if clients[i], err = newClient(ctx, conn, opts.Protocol, def, scale, seed, local); err != nil {
				_ = conn.Close(context.Background())
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		for _, c := range clients {
			if c != nil {
				_ = c.conn.Close(context.Background())
			}
		}
		return nil, 0, err
	}
	return clients, time.Since(t0), nil
}

// Scale returns the scale of the pgbench tables at dsn, or ErrNotLoaded
// (ErrIncompleteLoad for an interrupted load). The
// CLI asks before it records a run, so that a run of nothing is never stored.
func Scale(ctx context.Context, dsn string) (int, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	return readScale(ctx, conn)
}
