package main

// `pgoltp tune`, and the one adapter between internal/tuner's interfaces and
// today's concrete types (workloads, cluster, results store).

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/server"
	"github.com/pgoltp/pgoltp/internal/tune"
	"github.com/pgoltp/pgoltp/internal/tuner"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/registry"
)

// tuneDatabase is where tune loads its data on the managed cluster.
const tuneDatabase = "pgoltp_tune"

func init() {
	var f tuner.Options
	cmd := &cobra.Command{
		Use:   "tune",
		Short: "Search for the settings that make a workload fastest, then prove and explain the result",
		Long: `tune searches the settings of pgoltp's catalog (memory, WAL, checkpoints,
background writer, autovacuum, planner costs, huge_pages, jit) for the fastest
configuration of a workload, within the memory and CPUs PostgreSQL may use.

Every trial applies a configuration (one restart at most), prewarms, runs for
--trial, and is followed by a run of the starting configuration: each trial is
judged by its ratio to its neighbouring baseline runs, so a machine whose
speed drifts does not mislead the search (a Tree-structured Parzen Estimator,
warm-started with advise's configuration). The top candidates are then re-run
against the baseline, the best is compared with advise's configuration, and
each setting it changed is removed in turn (ablation): settings whose removal
costs nothing measurable are dropped. Gains carry 95% intervals.

A trial the server cannot start with is rolled back and recorded as failed;
the search goes on. Settings that cost durability are never tried without
--allow-unsafe. The original settings are restored at the end (verified by
reading them back) unless --apply. Ctrl-C stops after the current trial and
prints the best so far; --resume continues the search. Every run is stored:
'pgoltp runs' lists them, 'pgoltp compare' works on any two.

--layout (off by default: it rewrites the tables before every run) adds a
phase after the settings search: the fillfactor of the workload's tables
updated in place, each candidate measured with the best settings between
runs of the start layout; the layout found is confirmed with a 95% interval,
printed, and given as ALTER TABLE statements by --format sql. The tables are
put back as they were unless --apply.

With --dsn, settings that need a restart are left out of the search: pgoltp
does not restart a server it does not manage.`,
		Example: `  pgoltp tune --workload tpcc --warehouses 10 --budget 25 --trial 60s
  pgoltp tune --workload tpcb --scale 100 --objective p99 --format sql
  pgoltp tune --resume`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTune(cmd.Context(), cmd.OutOrStdout(), cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Workload, "workload", "tpcb", "tpcc or tpcb")
	fl.IntVar(&f.Scale, "scale", 0, "TPC-B scale (default 10)")
	fl.IntVar(&f.Scale, "warehouses", 0, "TPC-C warehouses (default 2)")
	fl.IntVar(&f.Clients, "clients", 0, "concurrent connections (default 4)")
	fl.IntVar(&f.Clients, "conns", 0, "same as --clients")
	fl.IntVar(&f.Budget, "budget", 25, "number of trials")
	fl.DurationVar(&f.Trial, "trial", 60*time.Second, "measured run per trial")
	fl.DurationVar(&f.Prewarm, "prewarm", 0, "unmeasured run before every measured one (default: a sixth of --trial, at least 1s)")
	fl.StringVar(&f.Objective, "objective", "", "tps, tpmc (TPC-C) or p99 (default: tpmc for tpcc, tps for tpcb)")
	fl.DurationVar(&f.MaxP99, "max-p99", 0, "penalise configurations whose p99 latency exceeds this")
	fl.BoolVar(&f.AllowUnsafe, "allow-unsafe", false, "also search settings that can lose or corrupt data on a crash (labelled in every output)")
	fl.BoolVar(&f.Apply, "apply", false, "keep the result on the server instead of restoring the original settings")
	fl.StringVar(&f.Format, "format", "", "also print the result as conf (postgresql.conf lines) or sql (ALTER SYSTEM)")
	fl.StringVar(&f.Resume, "resume", "", "continue a stored search: --resume (the latest) or --resume=ID")
	fl.Lookup("resume").NoOptDefVal = "latest"
	fl.Int64Var(&f.Seed, "seed", 1, "random seed of the search")
	fl.IntVar(&f.Confirm, "confirm", 3, "top candidates re-run against the baseline before one is declared best")
	fl.IntVar(&f.Ablation, "ablation", 0, "ablate at most this many settings, largest changes first (0: all)")
	fl.BoolVar(&f.Layout, "layout", false, "then search the fillfactor of the tables updated in place (rewrites them before every run)")
	fl.StringArrayVar(&f.Inject, "test-inject", nil, "testing only: TRIAL:name=value overrides a trial's setting")
	_ = fl.MarkHidden("test-inject")
	rootCmd.AddCommand(cmd)
}

func runTune(ctx context.Context, out io.Writer, cmd *cobra.Command, f tuner.Options) error {
	if err := f.Validate(); err != nil {
		return err
	}
	inject, err := tuner.ParseInject(f.Inject)
	if err != nil {
		return err
	}
	var resume *tuner.State
	if f.Resume != "" {
		id := f.Resume
		if id == "latest" {
			id = ""
		}
		if resume, err = tuner.Load(global.lab, id); err != nil {
			return problem.BadInput("run 'pgoltp tune' without --resume to start a search", "cannot resume: %v", err)
		}
		f.Seed, f.Objective, f.AllowUnsafe, f.Trial, f.MaxP99 = resume.Seed, resume.Objective, resume.AllowUnsafe, resume.Trial, resume.MaxP99
		if !cmd.Flags().Changed("budget") {
			f.Budget = resume.Budget
		}
	}
	w, kind, err := tuneWorkload(f)
	if err != nil {
		return err
	}
	if resume != nil && resume.Workload != w.Name() {
		return problem.BadInput("give the same --workload, --scale/--warehouses and --clients as the search had",
			"search %s ran %s, not %s", resume.ID, resume.Workload, w.Name())
	}
	if err := holdLab(); err != nil { // for the whole search
		return err
	}
	target, dsn, dataDir, err := tuneTarget(ctx)
	if err != nil {
		return err
	}
	server := tuner.ServerOf(target, dsn)
	host := tune.DetectHost(dataDir)
	limits := tuner.Limits{RAM: host.RAM, CPUs: host.CPUs, HugePagesTotal: host.HugePagesTotal}
	if _, managed := target.(*cluster.Cluster); !managed {
		limits.NoRestart = true
		fmt.Fprintln(os.Stderr, "--dsn: settings that need a restart are left out (pgoltp does not restart a server it does not manage)")
	}
	live, major, err := server.Read(ctx)
	if err != nil {
		return err
	}
	advice, err := tune.Advise(tune.AdviseInput{Host: host, Connections: f.Clients, Workload: kind, Major: major, Live: live})
	if err != nil {
		return problem.Failed("advise: %v", err)
	}
	id := "tune-" + time.Now().UTC().Format("20060102T150405Z")
	if resume != nil {
		id = resume.ID
	}
	t := &tuner.Tuner{
		Server: server, Workload: tuner.WorkloadOf(w, dsn), Lab: global.lab, Limits: limits,
		Recorder: tuner.StoreRecorder{Lab: global.lab, ResultsDSN: resultsStore.dsn, Kind: kind, Workload: w.Name()},
		ID:       id, Seed: f.Seed, Objective: f.Objective, MaxP99: f.MaxP99, AllowUnsafe: f.AllowUnsafe,
		Budget: f.Budget, TrialTime: f.Trial, Prewarm: f.Prewarm, Advise: advice.Settings(),
		Confirm: f.Confirm, Ablation: f.Ablation, Apply: f.Apply, Resume: resume, Log: os.Stderr, Inject: inject,
	}
	if f.Layout {
		if t.Layout, err = tuner.TablesOf(w, dsn); err != nil {
			return problem.BadInput("run tune without --layout", "%v", err)
		}
	}
	res, runErr := t.Run(ctx)
	if res != nil {
		if global.json {
			err = writeJSON(out, res)
		} else {
			err = res.Write(out, f.Format)
		}
		if err != nil {
			return err
		}
		if !res.Restored && !res.Applied {
			return problem.Failed("the original settings could NOT be restored (see the note above)")
		}
	}
	if runErr != nil {
		if p, ok := runErr.(*problem.Problem); ok {
			return p
		}
		return problem.Failed("tune stopped: %v (resume with 'pgoltp tune --resume %s')", runErr, id)
	}
	if res.Interrupted {
		return problem.Failed("tune interrupted; the best so far is shown above; continue with 'pgoltp tune --resume %s'", id)
	}
	return nil
}

// --- the adapter: today's concrete types behind internal/tuner's interfaces ---

func tuneWorkload(f tuner.Options) (workload.Workload, string, error) {
	w, err := registry.New(f.Workload, f.Scale, f.Clients)
	if err != nil {
		return nil, "", problem.BadInput("use --workload "+strings.Join(registry.Kinds(), ", "), "%v", err)
	}
	if f.Workload == "tpcc" {
		return w, tune.WorkloadTPCC, nil
	}
	return w, tune.WorkloadTPCB, nil
}

// tuneTarget is the managed cluster (database pgoltp_tune) or --dsn.
func tuneTarget(ctx context.Context) (tune.Server, string, string, error) {
	if global.dsn != "" {
		dsn, err := checkDSN(ctx, global.dsn)
		if err != nil {
			return nil, "", "", err
		}
		return server.External{DSN: dsn}, dsn, "/", nil
	}
	c, err := managedCluster(ctx)
	if err != nil {
		return nil, "", "", err
	}
	if err := c.EnsureDatabase(ctx, tuneDatabase); err != nil {
		return nil, "", "", err
	}
	return c, c.DSN(tuneDatabase), c.DataDir, nil
}
