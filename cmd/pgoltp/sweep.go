package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/measure"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/sweep"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/registry"
	"github.com/pgoltp/pgoltp/internal/workload/script"
)

// sweepFlags are the flags of 'pgoltp sweep'.
type sweepFlags struct {
	kind        string
	scale       int
	clients     []int
	repetitions int
	duration    time.Duration
	seed        uint64
	phases      string // a step-load file: one run whose rate changes by phase
	rates       []int  // the axis is the offered rate (tps), at one number of clients
	script      scriptFlags
}

// workload is the swept workload at clients.
func (f sweepFlags) workload(clients int) (workload.Workload, error) {
	return registry.Build(f.kind, registry.Spec{Scale: f.scale, Clients: clients, Script: f.script.o})
}

// axis is what the sweep varies and its values.
func (f sweepFlags) axis() (string, []int) {
	if len(f.rates) > 0 {
		return "rate", f.rates
	}
	return "clients", f.clients
}

func init() {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep --workload KIND --clients 1,2,4,8 [--repetitions N] [--duration D]",
		Short: "Run a workload at each number of clients, with repetitions, and find the knee",
		Long: `Run the workload once per number of clients per repetition, each point a stored
run ('pgoltp runs' shows them with the sweep's id), in randomised blocks: every
repetition runs every value once, in an order of its own, so that the machine's
drift spreads over the curve instead of bending it. The result is throughput and
p99 latency against the number of clients with 95% intervals across the
repetitions, the throughput gained per added client with its interval from the
differences within each repetition, and the knee: the last number of clients
whose gain over the one before is still significant. The data are loaded first when the database does not hold them.

--phases FILE runs one continuous run instead, whose offered rate steps by
phase (HammerDB's step load, BenchBase's phases): each line of FILE is a
phase's length and rate ('30s 500'; rate 0 is a pause), and the summary
gives each phase's offered and achieved throughput and its worst second's
p99. The workload must take a rate (tpcb).`,
		Example: `  pgoltp sweep --workload tpcb --scale 10 --clients 1,2,4,8,16,32 --repetitions 3 --duration 30s
  pgoltp sweep --workload script -f my.sql@5 -b select-only@1 --scale 10 --clients 1,2,4,8 --duration 30s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.script.check(f.kind, cmd.Flags()); err != nil {
				return err
			}
			if err := f.validate(); err != nil {
				return err
			}
			if f.phases != "" {
				return runPhases(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
			}
			return runSweep(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.kind, "workload", registry.KindsFor(registry.Search)[0], "the workload: "+registry.Or(registry.KindsFor(registry.Experiment)))
	fl.IntVar(&f.scale, "scale", 0, "its size: pgbench's scale for tpcb, warehouses for tpcc (0: the registry's default)")
	fl.IntSliceVar(&f.clients, "clients", nil, "the numbers of clients to run, e.g. 1,2,4,8,16")
	fl.IntVar(&f.repetitions, "repetitions", 3, "runs of each number of clients (2 or more for intervals and a knee)")
	fl.DurationVar(&f.duration, "duration", 30*time.Second, "length of each run")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the run order (0: drawn, and printed)")
	fl.IntSliceVar(&f.rates, "rates", nil, "sweep the offered rate (transactions per second) instead, at one --clients value, e.g. --rates 100,200,400,800 (workloads that take a rate: tpcb)")
	f.script.add(fl)
	fl.StringVar(&f.phases, "phases", "", "instead of a sweep, one run whose rate steps by phase: a file of lines 'LENGTH RATE' (e.g. '30s 500'), with one --clients value")
	rootCmd.AddCommand(cmd)
}

func (f *sweepFlags) validate() error {
	e, err := registry.Lookup(f.kind)
	if err != nil || e.Uses&registry.Experiment == 0 {
		return problem.BadInput("use --workload "+registry.Or(registry.KindsFor(registry.Experiment)), "--workload %q cannot be swept", f.kind)
	}
	if f.scale == 0 {
		f.scale = max(e.Scale, 1)
	}
	if f.kind == "script" {
		sc := f.script.o
		sc.Scale = f.scale // the clients are the sweep's
		if err := script.New(sc).Validate(); err != nil {
			return namedFlags(err, scriptFlagNames)
		}
	}
	if f.phases != "" || len(f.rates) > 0 {
		if len(f.clients) != 1 || f.clients[0] < 1 {
			return problem.BadInput("give one number of clients with --phases or --rates, e.g. --clients 8", "one load at a time: --clients %v", f.clients)
		}
		if w, err := f.workload(f.clients[0]); err != nil {
			return err
		} else if _, ok := w.(rateStepped); !ok {
			return problem.BadInput("use a workload that takes a rate, e.g. --workload tpcb", "--workload %s has no offered rate to step or sweep", f.kind)
		}
		if f.phases != "" {
			return nil
		}
	}
	name, values := f.axis()
	seen := map[int]bool{}
	for _, c := range values {
		if c < 1 || seen[c] {
			return problem.BadInput(fmt.Sprintf("give distinct numbers of 1 or more, e.g. --%s 1,2,4,8", name), "--%s %v", name, values)
		}
		seen[c] = true
	}
	switch {
	case len(values) < 2:
		return problem.BadInput("give two values or more, e.g. --clients 1,2,4,8 or --rates 100,200,400", "a sweep needs an axis")
	case f.repetitions < 1:
		return problem.BadInput("give --repetitions 1 or more", "--repetitions %d", f.repetitions)
	case f.duration < time.Second:
		return problem.BadInput("give --duration 1s or more", "--duration %s is too short", f.duration)
	case f.scale < 1:
		return problem.BadInput("give --scale 1 or more", "--scale %d", f.scale)
	}
	if f.seed == 0 {
		f.seed = uint64(time.Now().UnixNano())
	}
	return nil
}

// runSweep loads if needed, runs every point and prints the analysis.
func runSweep(ctx context.Context, out, log io.Writer, f sweepFlags) error {
	dsn, err := targetDSN(ctx)
	if err != nil {
		return err
	}
	if err := sweepLoad(ctx, dsn, f, log); err != nil {
		return err
	}
	rep := &sweep.Report{ID: "sweep-" + time.Now().UTC().Format("20060102-150405"), Workload: f.kind, Scale: f.scale, Duration: f.duration, Seed: f.seed}
	st, err := store.Open(ctx, global.lab, resultsStore.dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	axis, values := f.axis()
	rep.Axis = axis
	started := time.Now()
	order := sweep.Order(values, f.repetitions, f.seed)
	fmt.Fprintf(log, "sweep %s: %d runs of %s in randomised blocks (seed %d)\n", rep.ID, len(order), f.duration, f.seed)
	for i, p := range order {
		if ctx.Err() != nil {
			rep.Interrupted = true
			if err := keepSweep(context.WithoutCancel(ctx), st, rep, started, i, sweep.Result{}); err != nil {
				return err
			}
			break
		}
		r := sweepPoint(ctx, dsn, f, rep.ID, p)
		rep.Results = append(rep.Results, r)
		fmt.Fprintf(log, "  %d/%d: %s %d, repetition %d: %s\n", i+1, len(order), axis, p.Value, p.Rep, pointText(r))
		rep.Analysis = sweep.Analyze(axis, rep.Results)
		if err := keepSweep(context.WithoutCancel(ctx), st, rep, started, i+1, r); err != nil {
			return err
		}
	}
	return emit(out, rep, rep.WriteText)
}

// keepSweep stores the sweep as it goes, in the results store beside its
// runs (a search of kind "sweep", each point's run linked to it), so that
// 'pgoltp report ID' draws it from the store, also from another machine.
func keepSweep(ctx context.Context, st *store.Store, rep *sweep.Report, started time.Time, n int, r sweep.Result) error {
	doc, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	title := fmt.Sprintf("%s sweep of %s scale %d", rep.Axis, rep.Workload, rep.Scale)
	if err := st.SaveSearch(ctx, &store.Search{ID: rep.ID, Kind: sweepKind, Title: title, Started: started, Document: doc}); err != nil {
		return err
	}
	if r.RunID == "" {
		return nil
	}
	return st.LinkRun(ctx, rep.ID, store.SearchRun{RunID: r.RunID, Role: "point", Trial: n,
		Label: fmt.Sprintf("%s %d, repetition %d", rep.Axis, r.Value, r.Rep)})
}

// sweepKind is the kind of a sweep's record in the results store.
const sweepKind = "sweep"

// sweepLoad loads the data unless the database holds what the largest
// point needs.
func sweepLoad(ctx context.Context, dsn string, f sweepFlags, log io.Writer) error {
	w, err := f.workload(slices.Max(f.clients))
	if err != nil {
		return err
	}
	if r, ok := w.(workload.Ready); ok && r.Ready(ctx, dsn) == nil {
		return nil
	}
	fmt.Fprintf(log, "loading %s\n", w.Name())
	return w.Prepare(ctx, dsn, nil)
}

// sweepWorkload is the workload of one point: at that number of clients,
// or at that offered rate (one phase as long as the run).
func sweepWorkload(f sweepFlags, value int) (workload.Workload, error) {
	if len(f.rates) == 0 {
		return f.workload(value)
	}
	w, err := f.workload(f.clients[0])
	if err != nil {
		return nil, err
	}
	stepped, ok := w.(rateStepped)
	if !ok {
		return nil, problem.BadInput("use a workload that takes a rate, e.g. --workload tpcb", "--workload %s has no offered rate to sweep", f.kind)
	}
	stepped.SetRatePhases([]measure.RatePhase{{Until: f.duration, PerSecond: float64(value)}})
	return w, nil
}

// sweepPoint runs and stores one point.
func sweepPoint(ctx context.Context, dsn string, f sweepFlags, id string, p sweep.Point) sweep.Result {
	r := sweep.Result{Point: p}
	axis, _ := f.axis()
	w, err := sweepWorkload(f, p.Value)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	ro := recordOptions(true)
	ro.Log, ro.Duration = nil, f.duration
	ro.Params = []workload.Param{{Name: "sweep", Value: id}, {Name: "sweep " + axis, Value: strconv.Itoa(p.Value)},
		{Name: "sweep repetition", Value: strconv.Itoa(p.Rep)}}
	res, err := recorder.Run(ctx, dsn, w, ro)
	if res != nil {
		r.RunID = res.RunID
	}
	if err != nil || res == nil || res.Result == nil {
		r.Error = fmt.Sprint(err)
		return r
	}
	r.TPS, r.P99 = res.Result.TPS(), res.Result.P99
	return r
}

func pointText(r sweep.Result) string {
	if r.Error != "" {
		return "failed: " + r.Error
	}
	return fmt.Sprintf("%.1f tps, p99 %.2f ms (run %s)", r.TPS, float64(r.P99)/1e6, r.RunID)
}

// phasesReport is what a step load prints with --json.
type phasesReport struct {
	RunID    string        `json:"run_id"`
	Workload string        `json:"workload"`
	Clients  int           `json:"clients"`
	Phases   []sweep.Phase `json:"phases"`
}

// rateStepped is a workload whose offered rate can step by phase.
type rateStepped interface {
	SetRatePhases([]measure.RatePhase)
}

// runPhases runs one step load and prints each phase.
func runPhases(ctx context.Context, out, log io.Writer, f sweepFlags) error {
	file, err := os.Open(f.phases)
	if err != nil {
		return problem.BadInput("give a file of lines 'LENGTH RATE'", "--phases: %v", err)
	}
	phases, err := sweep.ParsePhases(file)
	file.Close()
	if err != nil {
		return problem.BadInput("fix the file", "--phases %s: %v", f.phases, err)
	}
	w, err := f.workload(f.clients[0])
	if err != nil {
		return err
	}
	stepped, ok := w.(rateStepped)
	if !ok {
		return problem.BadInput("use a workload that takes a rate, e.g. --workload tpcb", "--workload %s has no offered rate to step", f.kind)
	}
	dsn, err := targetDSN(ctx)
	if err != nil {
		return err
	}
	if err := sweepLoad(ctx, dsn, f, log); err != nil {
		return err
	}
	stepped.SetRatePhases(phases)
	ro := recordOptions(true)
	ro.Log = log
	ro.Params = []workload.Param{{Name: "phases", Value: f.phases}}
	res, err := recorder.Run(ctx, dsn, w, ro)
	if err != nil {
		return err
	}
	rep := phasesReport{RunID: res.RunID, Workload: f.kind, Clients: f.clients[0], Phases: sweep.Phases(phases, res.Result.Series)}
	return emit(out, rep, func(w io.Writer) error { return sweep.WritePhases(w, rep.Phases) })
}
