package main

import (
	"context"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/livemetrics"
	"github.com/pgoltp/pgoltp/internal/ossettings"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/tune"
	"github.com/pgoltp/pgoltp/internal/workload/registry"
)

func init() {
	f := tune.Options{Kinds: tunerKinds()}
	var sf scriptFlags
	var metricsAt string
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
costs nothing measurable are dropped. Gains carry 95% intervals. When the
best is not shown better than the start (its interval does not lie above
zero), the result is the starting settings: the best is listed as unproven,
nothing is ablated, and --apply and --format refuse it without --force.

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
does not restart a server it does not manage.

--os (as root, with --allow-os, for a server on this machine) adds OS
settings to the search, machine-wide: read-ahead and the I/O scheduler of the
disk under the data directory, the dirty-page limits in bytes, transparent
huge pages, and huge pages reserved for shared_buffers (the managed cluster
only: it needs a restart). Only the keys this machine lets pgoltp write are
searched; the others are listed up front, with why. The originals go into
the lab's restore record before the first change and are written back and
read back at the end ('pgoltp restore' after a kill); the result gives the
OS values as a plan's os: block.`,
		Example: `  pgoltp tune --workload tpcc --warehouses 10 --budget 25 --trial 60s
  pgoltp tune --workload tpcb --scale 100 --objective p99 --format sql
  pgoltp tune --workload script -f hot.sql@5 -b select-only@1 -D hot=1000 --scale 10 --budget 15
  pgoltp tune --resume`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTune(cmd.Context(), cmd.OutOrStdout(), cmd, f, sf, metricsAt)
		},
	}
	addTuneFlags(cmd.Flags(), &f)
	sf.add(cmd.Flags())
	addMetricsFlag(cmd.Flags(), &metricsAt)
	rootCmd.AddCommand(cmd)
}

func runTune(ctx context.Context, out io.Writer, cmd *cobra.Command, f tune.Options, sf scriptFlags, metricsAt string) error {
	if err := f.Validate(); err != nil {
		return namedFlags(err, tuneFlagNames(f.Workload))
	}
	if err := sf.check(f.Workload, cmd.Flags()); err != nil {
		return err
	}
	w, err := registry.Build(f.Workload, registry.Spec{Scale: f.Scale, Clients: f.Clients, Script: sf.o})
	if err != nil {
		return problem.BadInput("use --workload "+strings.Join(registry.Kinds(), ", "), "%v", err)
	}
	if v, ok := w.(interface{ Validate() error }); ok && f.Workload == "script" {
		if err := v.Validate(); err != nil {
			return namedFlags(err, scriptFlagNames)
		}
	}
	resume, err := f.Resumed(global.lab, cmd.Flags().Changed("budget"), w.Name())
	if err != nil {
		return err
	}
	if f.OS { // before anything connects; ossettings refuses again where the machine changes
		if err := refuseOS(f.AllowOS); err != nil {
			return err
		}
	}
	if err := holdLab(); err != nil { // for the whole search
		return err
	}
	server, dsn, err := tunedServer(ctx, tuneDatabase)
	if err != nil {
		return err
	}
	var remote string
	if f.OS { // a --dsn server that is not this machine's
		opts, err := osOptions(ctx, f.AllowOS, dsn)
		if err != nil {
			return err
		}
		if remote = opts.Remote; remote != "" {
			return ossettings.Refuse(f.AllowOS, remote) // in one line, before the search says anything
		}
	}
	// Resumed, a pending record is the search's own (its kill left it).
	guard, err := pendingGuard(resume != nil)
	if err != nil {
		return err
	}
	live, stopLive, err := serveLive(metricsAt, livemetrics.Info{Workload: w.Kind(), Mode: "tune"}, os.Stderr)
	if err != nil {
		return err
	}
	defer stopLive()
	t, err := tune.New(ctx, tune.Setup{Options: f, Resume: resume, Workload: w, Server: server, DSN: dsn,
		Lab: global.lab, ResultsDSN: resultsStore.dsn, Log: os.Stderr, Pending: guard, OnInterval: intervalsOf(live), Remote: remote})
	if err != nil {
		return err
	}
	res, runErr := t.Run(ctx)
	if res != nil {
		if err := emit(out, res, func(w io.Writer) error { return res.Write(w, f.Format, f.Force) }); err != nil {
			return err
		}
	}
	return t.Verdict(res, runErr)
}

// tunerKinds are the registry's workloads a search can drive.
func tunerKinds() []tune.Kind {
	var kinds []tune.Kind
	for _, e := range registry.For(registry.Search) {
		kinds = append(kinds, tune.Kind{Name: e.Kind, Title: e.Title, Scale: e.Scale, Objective: e.Figure, HotRows: e.HotRows})
	}
	return kinds
}
