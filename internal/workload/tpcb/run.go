package tpcb

import (
	"context"
	"errors"
	"fmt"
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
	conns, lag, err := openClients(ctx, cfgs, opts, res)
	if err != nil {
		return nil, err
	}
	defer lag.Stop()
	tallies := newTallies(rec, len(conns), &def, opts)
	if opts.StartGate != nil {
		if err := opts.StartGate(ctx); err != nil {
			closeConns(conns)
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
	rc := newReconnector(cfgs, deadline)
	errs, err := runEngine(ctx, conns, tallies, &def, sp, opts, start, deadline, rc)
	res.Split = readSplit(opts.Reads, tallies, lag.Stop())
	if err != nil {
		stopMeter()
		return nil, err
	}
	rc.result(res)
	res.EventLoop = true
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
func openClients(ctx context.Context, cfgs clientConfigs, opts RunOptions, res *RunResult) ([]*pgconn.PgConn, *workload.LagWatch, error) {
	if err := opts.Reads.CatchUp(ctx); err != nil {
		return nil, nil, err
	}
	conns, connectTime, err := connectClients(ctx, cfgs, opts)
	if err != nil {
		return nil, nil, err
	}
	res.ConnectTime = connectTime
	lag, err := opts.Reads.WatchLag(ctx)
	if err != nil {
		closeConns(conns)
		return nil, nil, err
	}
	return conns, lag, nil
}

// closeConns closes the connections of a run that did not start.
func closeConns(conns []*pgconn.PgConn) {
	for _, c := range conns {
		if c != nil {
			_ = c.Close(context.Background())
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

// connectClients opens every client's connection in parallel and returns
// how long that took.
func connectClients(ctx context.Context, cfgs clientConfigs, opts RunOptions) ([]*pgconn.PgConn, time.Duration, error) {
	t0 := time.Now()
	conns := make([]*pgconn.PgConn, opts.Clients)
	var g errgroup.Group
	for i := range conns {
		g.Go(func() error {
			conn, err := pgconn.ConnectConfig(ctx, cfgs.of(i))
			if err != nil {
				return fmt.Errorf("connecting client %d: %w", i, err)
			}
			conns[i] = conn
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		closeConns(conns)
		return nil, 0, err
	}
	return conns, time.Since(t0), nil
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
