package main

// `pgoltp tune`, and the one adapter between internal/tuner's interfaces and
// today's concrete types (workloads, cluster, results store).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/report"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/tune"
	"github.com/pgoltp/pgoltp/internal/tuner"
)

// tuneDatabase is where tune loads its data on the managed cluster.
const tuneDatabase = "pgoltp_tune"

type tuneFlags struct {
	workload    string
	scale       int
	clients     int
	budget      int
	trial       time.Duration
	prewarm     time.Duration
	objective   string
	maxP99      time.Duration
	allowUnsafe bool
	apply       bool
	format      string
	resume      string
	seed        int64
	confirm     int
	ablation    int
	inject      []string // test only: trial:name=value
}

func init() {
	var f tuneFlags
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
	fl.StringVar(&f.workload, "workload", "tpcb", "tpcc or tpcb")
	fl.IntVar(&f.scale, "scale", 0, "TPC-B scale (default 10)")
	fl.IntVar(&f.scale, "warehouses", 0, "TPC-C warehouses (default 2)")
	fl.IntVar(&f.clients, "clients", 0, "concurrent connections (default 4)")
	fl.IntVar(&f.clients, "conns", 0, "same as --clients")
	fl.IntVar(&f.budget, "budget", 25, "number of trials")
	fl.DurationVar(&f.trial, "trial", 60*time.Second, "measured run per trial")
	fl.DurationVar(&f.prewarm, "prewarm", 0, "unmeasured run before every measured one (default: a sixth of --trial, at least 1s)")
	fl.StringVar(&f.objective, "objective", "", "tps, tpmc (TPC-C) or p99 (default: tpmc for tpcc, tps for tpcb)")
	fl.DurationVar(&f.maxP99, "max-p99", 0, "penalise configurations whose p99 latency exceeds this")
	fl.BoolVar(&f.allowUnsafe, "allow-unsafe", false, "also search settings that can lose or corrupt data on a crash (labelled in every output)")
	fl.BoolVar(&f.apply, "apply", false, "keep the result on the server instead of restoring the original settings")
	fl.StringVar(&f.format, "format", "", "also print the result as conf (postgresql.conf lines) or sql (ALTER SYSTEM)")
	fl.StringVar(&f.resume, "resume", "", "continue a stored search: --resume (the latest) or --resume=ID")
	fl.Lookup("resume").NoOptDefVal = "latest"
	fl.Int64Var(&f.seed, "seed", 1, "random seed of the search")
	fl.IntVar(&f.confirm, "confirm", 3, "top candidates re-run against the baseline before one is declared best")
	fl.IntVar(&f.ablation, "ablation", 0, "ablate at most this many settings, largest changes first (0: all)")
	fl.StringArrayVar(&f.inject, "test-inject", nil, "testing only: TRIAL:name=value overrides a trial's setting")
	_ = fl.MarkHidden("test-inject")
	rootCmd.AddCommand(cmd)
}

func runTune(ctx context.Context, out io.Writer, cmd *cobra.Command, f tuneFlags) error {
	if err := checkTuneFlags(&f); err != nil {
		return err
	}
	inject, err := parseInject(f.inject)
	if err != nil {
		return err
	}
	var resume *tuner.State
	if f.resume != "" {
		id := f.resume
		if id == "latest" {
			id = ""
		}
		if resume, err = tuner.Load(global.lab, id); err != nil {
			return problem.BadInput("run 'pgoltp tune' without --resume to start a search", "cannot resume: %v", err)
		}
		f.seed, f.objective, f.allowUnsafe, f.trial, f.maxP99 = resume.Seed, resume.Objective, resume.AllowUnsafe, resume.Trial, resume.MaxP99
		if !cmd.Flags().Changed("budget") {
			f.budget = resume.Budget
		}
	}
	w, kind := tuneWorkload(f)
	if resume != nil && resume.Workload != w.Name() {
		return problem.BadInput("give the same --workload, --scale/--warehouses and --clients as the search had",
			"search %s ran %s, not %s", resume.ID, resume.Workload, w.Name())
	}
	if err := holdLab(); err != nil { // for the whole search
		return err
	}
	server, dsn, dataDir, err := tuneTarget(ctx)
	if err != nil {
		return err
	}
	host := tune.DetectHost(dataDir)
	limits := tuner.Limits{RAM: host.RAM, CPUs: host.CPUs, HugePagesTotal: host.HugePagesTotal}
	if _, managed := server.server.(*cluster.Cluster); !managed {
		limits.NoRestart = true
		fmt.Fprintln(os.Stderr, "--dsn: settings that need a restart are left out (pgoltp does not restart a server it does not manage)")
	}
	live, major, err := server.Read(ctx)
	if err != nil {
		return err
	}
	advice, err := tune.Advise(tune.AdviseInput{Host: host, Connections: f.clients, Workload: kind, Major: major, Live: live})
	if err != nil {
		return problem.Failed("advise: %v", err)
	}
	id := "tune-" + time.Now().UTC().Format("20060102T150405Z")
	if resume != nil {
		id = resume.ID
	}
	t := &tuner.Tuner{
		Server: server, Workload: tuneWorkloadAdapter{w: w, dsn: dsn}, Lab: global.lab, Limits: limits,
		Recorder: tuneRecorder{kind: kind, workload: w.Name()},
		ID:       id, Seed: f.seed, Objective: f.objective, MaxP99: f.maxP99, AllowUnsafe: f.allowUnsafe,
		Budget: f.budget, TrialTime: f.trial, Prewarm: f.prewarm, Advise: advice.Settings(),
		Confirm: f.confirm, Ablation: f.ablation, Apply: f.apply, Resume: resume, Log: os.Stderr, Inject: inject,
	}
	res, runErr := t.Run(ctx)
	if res != nil {
		if err := writeTuneResult(out, res, f.format); err != nil {
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

func checkTuneFlags(f *tuneFlags) error {
	switch f.workload {
	case "tpcb":
		if f.scale == 0 {
			f.scale = 10
		}
	case "tpcc":
		if f.scale == 0 {
			f.scale = 2
		}
	default:
		return problem.BadInput("use --workload tpcc or tpcb", "tune cannot drive workload %q", f.workload)
	}
	if f.clients == 0 {
		f.clients = 4
	}
	if f.objective == "" {
		f.objective = tuner.ObjectiveTPS
		if f.workload == "tpcc" {
			f.objective = tuner.ObjectiveTPMC
		}
	}
	switch {
	case f.scale < 1:
		return problem.BadInput("use --scale/--warehouses 1 or more", "scale %d", f.scale)
	case f.clients < 1:
		return problem.BadInput("use --clients 1 or more", "--clients %d", f.clients)
	case f.budget < 1:
		return problem.BadInput("use --budget 1 or more", "--budget %d", f.budget)
	case f.trial < time.Second:
		return problem.BadInput("use --trial 1s or more", "--trial %s is too short to measure", f.trial)
	case f.objective != tuner.ObjectiveTPS && f.objective != tuner.ObjectiveTPMC && f.objective != tuner.ObjectiveP99:
		return problem.BadInput("use --objective tps, tpmc or p99", "unknown objective %q", f.objective)
	case f.objective == tuner.ObjectiveTPMC && f.workload != "tpcc":
		return problem.BadInput("use --objective tps with tpcb", "tpmC is a TPC-C figure")
	case f.format != "" && f.format != "conf" && f.format != "sql":
		return problem.BadInput("use --format conf or sql", "unknown format %q", f.format)
	case f.confirm < 1:
		return problem.BadInput("use --confirm 1 or more", "--confirm %d", f.confirm)
	case f.ablation < 0:
		return problem.BadInput("use --ablation 0 (all) or more", "--ablation %d", f.ablation)
	}
	if f.prewarm == 0 {
		f.prewarm = max(time.Second, f.trial/6)
	}
	return nil
}

// parseInject reads the test-only --test-inject TRIAL:name=value flags.
func parseInject(list []string) (map[int]map[string]string, error) {
	out := map[int]map[string]string{}
	for _, s := range list {
		n, kv, ok := strings.Cut(s, ":")
		name, value, ok2 := strings.Cut(kv, "=")
		trial, err := strconv.Atoi(n)
		if !ok || !ok2 || err != nil || trial < 1 {
			return nil, problem.BadInput("use --test-inject TRIAL:name=value", "bad --test-inject %q", s)
		}
		if out[trial] == nil {
			out[trial] = map[string]string{}
		}
		out[trial][name] = value
		if err := settings.CheckApplicable(out[trial]); err != nil {
			return nil, problem.BadInput("inject only catalog settings", "%v", err)
		}
	}
	return out, nil
}

func writeTuneResult(out io.Writer, res *tuner.Result, format string) error {
	if global.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	if err := res.WriteText(out); err != nil {
		return err
	}
	switch format {
	case "conf":
		return res.WriteConf(out)
	case "sql":
		return res.WriteSQL(out)
	}
	return nil
}

// --- the adapter: today's concrete types behind internal/tuner's interfaces ---

func tuneWorkload(f tuneFlags) (tune.Workload, string) {
	if f.workload == "tpcc" {
		return tune.TPCC{Warehouses: f.scale, Conns: f.clients}, tune.WorkloadTPCC
	}
	return tune.TPCB{Scale: f.scale, Clients: f.clients}, tune.WorkloadTPCB
}

// tuneTarget is the managed cluster (database pgoltp_tune) or --dsn.
func tuneTarget(ctx context.Context) (tuneServer, string, string, error) {
	if global.dsn != "" {
		dsn, err := checkDSN(ctx, global.dsn)
		if err != nil {
			return tuneServer{}, "", "", err
		}
		return tuneServer{server: externalServer{dsn: dsn}, dsn: dsn}, dsn, "/", nil
	}
	c, err := managedCluster(ctx)
	if err != nil {
		return tuneServer{}, "", "", err
	}
	if err := ensureDatabase(ctx, c, tuneDatabase); err != nil {
		return tuneServer{}, "", "", err
	}
	return tuneServer{server: c, dsn: c.DSN(tuneDatabase)}, c.DSN(tuneDatabase), c.DataDir, nil
}

// tuneServer is tuner.Server over tune.Server (the cluster or an external server).
type tuneServer struct {
	server tune.Server
	dsn    string
}

func (s tuneServer) Read(ctx context.Context) (map[string]settings.Live, int, error) {
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.dsn)
	if err != nil {
		return nil, 0, problem.Wrap(err, "check the server", "cannot connect to read pg_settings")
	}
	defer conn.Close(context.Background())
	return settings.ReadServer(ctx, conn)
}

func (s tuneServer) Apply(ctx context.Context, values map[string]string) (bool, error) {
	if err := settings.CheckApplicable(values); err != nil {
		return false, err
	}
	return s.server.Apply(ctx, values)
}

func (s tuneServer) Restore(ctx context.Context, before map[string]settings.Live, names []string) error {
	return tune.Restore(ctx, s.server, s.dsn, before, names)
}

// tuneWorkloadAdapter is tuner.Workload over tune.Workload.
type tuneWorkloadAdapter struct {
	w   tune.Workload
	dsn string
}

func (a tuneWorkloadAdapter) Name() string                      { return a.w.Name() }
func (a tuneWorkloadAdapter) Prepare(ctx context.Context) error { return a.w.Prepare(ctx, a.dsn, nil) }
func (a tuneWorkloadAdapter) Run(ctx context.Context, d time.Duration) (tuner.Measurement, error) {
	m, err := a.w.Run(ctx, a.dsn, d)
	return tuner.Measurement{TPS: m.TPS(), PerSecond: m.PerSecond, P99: m.P99, Errors: m.Errors}, err
}

// tuneRecorder stores each run of a search in the results store, tagged
// with the search id, so 'pgoltp runs', 'report' and 'compare' see trials.
type tuneRecorder struct{ kind, workload string }

func (r tuneRecorder) Record(ctx context.Context, info tuner.RunInfo, m tuner.Measurement, failure error) (string, error) {
	run := &store.Run{Workload: r.kind, Title: fmt.Sprintf("%s %s: %s", info.Search, info.Role, info.Label),
		StartedAt: info.Started, EndedAt: time.Now(), Status: store.Complete}
	run.Params = []store.KV{{Name: "tune search", Value: info.Search}, {Name: "tune role", Value: info.Role},
		{Name: "tune trial", Value: strconv.Itoa(info.Trial)}, {Name: "workload", Value: r.workload}}
	names := make([]string, 0, len(info.Settings))
	for n := range info.Settings {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		run.Params = append(run.Params, store.KV{Name: "setting " + n, Value: info.Settings[n]})
	}
	run.Headline = []store.Figure{
		{Name: "TPS", Value: m.TPS, Unit: "txn/s"},
		{Name: "latency p99", Value: float64(m.P99) / float64(time.Millisecond), Unit: "ms"},
		{Name: "errors", Value: float64(m.Errors), Unit: "txn"},
	}
	if failure != nil {
		run.Status = store.Failed
		run.Notes = append(run.Notes, "failed: "+oneLine(failure.Error()))
	}
	return report.Record(ctx, global.lab, resultsStore.dsn, run)
}
