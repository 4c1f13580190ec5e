package main

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/crashaudit"
	"github.com/pgoltp/pgoltp/internal/experiment"
	"github.com/pgoltp/pgoltp/internal/livemetrics"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/workload/registry"
)

type experimentFlags struct {
	crashaudit.CrashOptions
	crash, example bool
	failover       bool   // issue 31: kill the primary, promote a standby, count lost commits
	failoverSync   string // on, remote_write, remote_apply or off
	failoverKill   string // primary or network
	allowOS        bool   // issue 28: plans may change machine-wide OS settings
	fromDoctor     bool   // issue 28: the steps are doctor's OS recommendations
	metricsAt      string
}

// experimentLong is the help of 'pgoltp experiment'.
var experimentLong = `experiment runs a plan: a baseline and steps of settings (and optionally a data
layout such as fillfactor). For each step it applies the settings (restarting
only when one needs it), optionally prewarms, and runs the workload in pairs
interleaved with the baseline (A B A B … A: every step run between two
baseline runs), reading the settings back from pg_settings during every run.
It reports the step's throughput effect as the mean of the paired ratios with
an interval that counts both each run's own per-second noise and the spread
between pairs, the smallest effect that noise could show, p99, per-second
stability and a verdict. 'repetitions: auto' (the default) adds pairs, from 2
up to max_repetitions, until the interval excludes zero or rules out effects
of min_effect. Settings that cost durability need --allow-unsafe and are
labelled in every output.

With --crash it audits durability instead: it runs a small ledger workload whose
driver logs every acknowledged commit, kills the server (SIGKILL) mid-run,
restarts it and counts acknowledged commits that are missing.

With --failover (a lab with standbys: 'cluster up --standbys 1') it audits a
failover: the same ledger on the primary, with synchronous replication at a
synchronous_commit level or asynchronous (--sync on|remote_write|remote_apply|off),
the primary taken away mid-run (--kill primary: SIGKILL of its postmaster;
--kill network: its replication cut in pg_hba.conf and its walsenders ended,
while its clients go on committing on it until the standby is promoted and
the old primary fenced), promotion of the most advanced standby, and the
acknowledged commits the new primary lacks, counted, with the time without
a primary. The lab is put back afterwards: the
old primary recovers and is the primary again, its standbys cloned anew.
A plan with a failover: block runs that audit for every combination, each on
a fresh cluster (a primary and one standby in LAB/failover, on the lab's
binaries, destroyed after it), and prints one table (duration: is each
audit's time before the kill, workload.clients its clients; an empty list is
every value):
  duration: 5s
  failover: {sync: [on, remote_write, remote_apply, off], kill: [primary, network]}

A step (and the baseline) may also take os: beside settings:, machine-wide
kernel and disk settings (` + "`" + `os: {vm.dirty_bytes: 1073741824, block.read_ahead_kb: 4096,
transparent_hugepage: never, hugepages: auto}` + "`" + `; block.* is the disk under the data
directory). They need root and --allow-os, are checked against what this kernel
accepts before anything runs, kept in the lab's restore record, labelled
machine-wide in every output and restored and read back at the end.

Both need the lab's managed cluster (restart, kill); a plan without restart-only
settings also runs on --dsn, whose tables of the workload it replaces.`

func init() {
	var f experimentFlags
	cmd := &cobra.Command{
		Use:   "experiment PLAN.yaml | --crash",
		Short: "Measure what settings are worth: A/B runs against a baseline, or a crash that counts lost commits",
		Long:  experimentLong,
		Example: `  pgoltp experiment --example > plan.yaml
  pgoltp experiment plan.yaml
  pgoltp experiment --crash --set synchronous_commit=off --allow-unsafe
  pgoltp experiment --crash --set synchronous_commit=on --kill-after 10s
  pgoltp experiment --failover --sync off --kill-after 10s
  pgoltp experiment --failover --sync on --kill network`,
		Args: func(cmd *cobra.Command, args []string) error {
			if f.example {
				return cobra.NoArgs(cmd, args)
			}
			if (f.crash || f.failover) && len(args) != 0 {
				return problem.BadInput("give either a plan file, --crash or --failover", "--crash and --failover take no plan file")
			}
			if f.fromDoctor && len(args) <= 1 {
				return nil
			}
			if !f.crash && !f.failover && len(args) != 1 {
				return problem.BadInput("run 'pgoltp experiment PLAN.yaml' or 'pgoltp experiment --crash'", "experiment needs one plan file")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.example {
				_, err := io.WriteString(cmd.OutOrStdout(), experiment.ExamplePlan)
				return err
			}
			if f.failover {
				return runFailover(cmd.Context(), cmd.OutOrStdout(), f)
			}
			if f.crash {
				return runCrash(cmd.Context(), cmd.OutOrStdout(), f)
			}
			if f.fromDoctor {
				return runFromDoctor(cmd.Context(), cmd.OutOrStdout(), args, f)
			}
			return runExperiment(cmd.Context(), cmd.OutOrStdout(), args[0], f)
		},
	}
	fl := cmd.Flags()
	addCrashFlags(fl, &f.CrashOptions)
	fl.BoolVar(&f.crash, "crash", false, "durability audit: run, kill the server mid-run, restart, count lost acknowledged commits")
	fl.BoolVar(&f.failover, "failover", false, "failover audit on the lab's primary and standbys: run, kill the primary mid-run, promote the most advanced standby, count lost acknowledged commits")
	fl.StringVar(&f.failoverSync, "sync", "on", "with --failover: replication during the audit: on, remote_write or remote_apply (synchronous, that synchronous_commit for the workload) or off (asynchronous)")
	fl.StringVar(&f.failoverKill, "kill", crashaudit.KillPrimary, "with --failover: how the primary goes: primary (SIGKILL) or network (replication cut, old primary fenced after the promotion)")
	fl.BoolVar(&f.example, "example", false, "print a commented example plan and exit")
	fl.BoolVar(&f.fromDoctor, "from-doctor", false, "measure doctor's OS recommendations for this server, one step each (the workload, duration and baseline from PLAN.yaml if given)")
	addMetricsFlag(fl, &f.metricsAt)
	fl.BoolVar(&f.allowOS, "allow-os", false, "let a plan's os: change kernel and disk settings machine-wide (root only; restored at the end)")
	rootCmd.AddCommand(cmd)
}

func runExperiment(ctx context.Context, out io.Writer, path string, f experimentFlags) error {
	if len(f.Set) > 0 {
		return problem.BadInput("put settings in the plan file", "--set is only for --crash")
	}
	plan, err := experiment.ReadPlan(path)
	if err != nil {
		return err
	}
	if plan.Failover != nil {
		return runFailoverPlan(ctx, out, plan)
	}
	if len(plan.Versions) > 0 || len(plan.Builds) > 0 {
		return runVersionPlan(ctx, out, path, plan)
	}
	if err := checkPlanWorkload(plan); err != nil {
		return badPlan(path, err)
	}
	if global.dsn != "" {
		if _, err := planPoolerDSN(plan, experimentDatabase); err != nil {
			return err
		}
	}
	return runPlan(ctx, out, plan, f, nil)
}

// runPlan runs an experiment plan on target, or when nil on the server the
// flags name (--from-doctor has it already: it asked doctor there).
func runPlan(ctx context.Context, out io.Writer, plan *experiment.Plan, f experimentFlags, target *planTarget) error {
	if planChangesOS(plan) {
		if err := refuseOS(f.allowOS); err != nil {
			return err
		}
	}
	w, err := registry.Build(plan.Workload.Kind, planSpec(plan.Workload))
	if err != nil {
		return problem.BadInput("use workload kind "+strings.Join(registry.Kinds(), ", "), "experiments cannot drive %s", plan.Workload.Kind)
	}
	if target == nil {
		server, dsn, err := tunedServer(ctx, experimentDatabase)
		if err != nil {
			return err
		}
		target = &planTarget{server, dsn}
	}
	server, dsn := target.server, target.dsn
	poolerDSN, err := planPoolerDSN(plan, experimentDatabase)
	if err != nil {
		return err
	}
	guard, err := pendingGuard(false)
	if err != nil {
		return err
	}
	live, stopLive, err := serveLive(f.metricsAt, livemetrics.Info{Workload: w.Kind(), Mode: "experiment"}, os.Stderr)
	if err != nil {
		return err
	}
	defer stopLive()
	e := &experiment.Experiment{Plan: plan, Workload: w, Server: server, DSN: dsn, PoolerDSN: poolerDSN, AllowUnsafe: f.AllowUnsafe, Log: os.Stderr, Pending: guard,
		OnInterval: intervalsOf(live)}
	if planChangesOS(plan) {
		if e.OS, err = osOptions(ctx, f.allowOS, dsn); err != nil {
			return err
		}
	}
	rep, err := e.Run(ctx)
	err = asPlanKeys(err)
	ran := rep != nil && len(rep.Steps) > 0
	if ran {
		// Nothing lost: the report is kept in the lab even when the run was interrupted.
		experiment.KeepReport(global.lab, "experiment", rep, os.Stderr)
	}
	if p := (*problem.Problem)(nil); err == nil || ran && !errors.As(err, &p) {
		if werr := emit(out, rep, rep.WriteText); werr != nil && err == nil {
			return werr
		}
	}
	return rep.Verdict(err, ctx.Err() != nil)
}

// checkPlanWorkload checks the options a plan gives its workload before
// anything runs, on a workload of its own (Validate fills in defaults).
func checkPlanWorkload(plan *experiment.Plan) error {
	w, err := registry.Build(plan.Workload.Kind, planSpec(plan.Workload))
	if v, ok := w.(interface{ Validate() error }); ok && err == nil {
		return v.Validate()
	}
	return err
}

func runCrash(ctx context.Context, out io.Writer, f experimentFlags) error {
	if err := f.Validate(); err != nil {
		return namedFlags(err, crashFlags)
	}
	if err := holdLab(); err != nil {
		return err
	}
	c, err := managedDatabase(ctx, experimentDatabase)
	if err != nil {
		return err
	}
	guard, err := pendingGuard(false)
	if err != nil {
		return err
	}
	audit := f.Audit(c, c.DSN(experimentDatabase), os.Stderr)
	audit.Pending = guard
	rep, err := audit.Run(ctx)
	err = namedFlags(err, crashFlags)
	if rep != nil {
		experiment.KeepReport(global.lab, "crash", rep, os.Stderr)
	}
	if err == nil {
		if err := emit(out, rep, rep.WriteText); err != nil {
			return err
		}
	}
	return rep.Outcome(err, ctx.Err() != nil)
}
