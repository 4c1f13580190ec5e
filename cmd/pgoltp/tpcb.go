package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/livemetrics"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/tpcb"
)

// tpcbCmd groups the pgbench-compatible TPC-B commands.
var tpcbCmd = &cobra.Command{
	Use:   "tpcb",
	Short: "TPC-B as pgbench does it: load, run, check",
	Long: `TPC-B (sort of), compatible with pgbench: the same four pgbench_* tables, the
same built-in scripts and the same flags where pgbench has them. A database
initialised by 'pgbench -i' runs under 'pgoltp tpcb run', and one loaded by
'pgoltp tpcb load' runs under pgbench.`,
}

func init() {
	rootCmd.AddCommand(tpcbCmd)
	tpcbCmd.AddCommand(newTPCBLoadCmd(), newTPCBRunCmd(), newTPCBCheckCmd())
}

func newTPCBLoadCmd() *cobra.Command {
	var o tpcb.LoadOptions
	cmd := &cobra.Command{
		Use:   "load",
		Short: "create and fill the pgbench tables (like pgbench -i), in parallel",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return problem.BadInput("run 'pgoltp tpcb load --help' for the flags", "%s", asFlags(err, nil))
			}
			dsn, err := targetDSN(cmd.Context())
			if err != nil {
				return err
			}
			if o.FreeDisk, err = loadFreeDisk(); err != nil {
				return err
			}
			if !global.json {
				o.Log = os.Stderr
			}
			res, err := tpcb.Load(cmd.Context(), dsn, o)
			if err != nil {
				return fmt.Errorf("tpcb load: %w", asFlags(err, nil))
			}
			if global.json {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			return nil
		},
	}
	addTPCBLoadFlags(cmd.Flags(), &o)
	return cmd
}

func newTPCBRunCmd() *cobra.Command {
	var (
		o         tpcb.RunOptions
		fl        tpcbRunFlags
		rr        recordFlags
		grp       groupFlags
		via       viaFlag
		reads     readsFlag
		metricsAt string
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "run a pgbench built-in script, then check balances and history",
		Long: `Runs pgbench's built-in TPC-B-like script (or -N / -S) with pgbench's flags and
prints a pgbench-style summary with latency percentiles. Unlike pgbench it
keeps pgbench_history (pgbench truncates it before each run), and afterwards
checks that balances and history moved together and that the history holds
one row per committed transaction.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := fl.apply(&o); err != nil {
				return err
			}
			if err := reads.needsReadOnlyWork(o.Script.ReadOnly(), "run the select-only script (-S), the one that only reads"); err != nil {
				return err
			}
			ro := recordOptions(true)
			if err := rr.apply(&ro, cmd.Flags(), o.Duration); err != nil {
				return err
			}
			if err := joinGroup(&ro, grp, &o.Part); err != nil {
				return err
			}
			_ = driver.UseCPUs(o.CPUs(), o.Clients) // procs above 0: no error
			stopLive, err := startLive(metricsAt, &ro, livemetrics.Info{Workload: tpcbCmd.Name()}, cmd.ErrOrStderr(),
				livemetrics.Rate{Figure: "tps", Type: "transaction", Per: time.Second})
			if err != nil {
				return err
			}
			defer stopLive()
			dsn, err := via.target(cmd.Context(), &ro)
			if err != nil {
				return err
			}
			if err := tpcbReads(cmd.Context(), reads, &o, dsn, &ro); err != nil {
				return err
			}
			if o.Progress > 0 {
				o.Out = os.Stderr
			}
			out, err := recorder.Run(cmd.Context(), dsn, &tpcb.Workload{Options: o, CheckMode: tpcbCheckMode(o.NoCheck)}, ro)
			if err != nil {
				return tpcbProblem("tpcb run", err)
			}
			res := out.Result.Detail.(*tpcb.RunResult)
			if err := emit(cmd.OutOrStdout(), res, func(w io.Writer) error { res.WriteSummary(w); return nil }); err != nil {
				return err
			}
			return res.Verdict()
		},
	}
	f := cmd.Flags()
	fl.add(f, &o)
	rr.add(f, "store the run in the results store with OS and PostgreSQL statistics sampled around it (--record=false for bare driver-CPU comparisons)")
	via.add(cmd)
	reads.add(cmd, "the select-only script's transactions")
	addMetricsFlag(f, &metricsAt)
	grp.add(f, "branches: each transaction draws its branch uniformly from the part's range (pgbench draws from all), accounts and tellers from all")
	return cmd
}

// tpcbReads points the read-only script's clients at the standbys that
// --reads or --read-dsn name, and checks the options with them; the
// collectors read the standbys (collectStandbys).
func tpcbReads(ctx context.Context, reads readsFlag, o *tpcb.RunOptions, dsn string, ro *recorder.Options) error {
	var err error
	if o.Reads, err = reads.resolve(ctx, dsn); err != nil {
		return err
	}
	if err := collectStandbys(ro, o.Reads); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return problem.BadInput("run 'pgoltp tpcb run --help' for the flags", "%s", asFlags(err, tpcbRunFlagNames))
	}
	return nil
}

func newTPCBCheckCmd() *cobra.Command {
	var o tpcb.CheckOptions
	cmd := &cobra.Command{
		Use:   "check",
		Short: "check that balances and history agree (Σ abalance = Σ tbalance = Σ bbalance = Σ delta)",
		Long: `Checks the whole database: Σ abalance = Σ history delta, Σ tbalance = Σ bbalance,
and Σ tbalance = Σ history delta unless --skip-some-updates runs happened; with
--expect-history, also the number of history rows. These hold from a load on
as long as pgbench_history was never truncated (pgbench truncates it before a
run unless given -n).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return badFlag(err, nil, "")
			}
			dsn, err := targetDSN(cmd.Context())
			if err != nil {
				return err
			}
			res, err := tpcb.Check(cmd.Context(), dsn, o)
			if err != nil {
				return tpcbProblem("tpcb check", err)
			}
			if err := emit(cmd.OutOrStdout(), res, func(w io.Writer) error { res.WriteText(w); return nil }); err != nil {
				return err
			}
			return res.Verdict()
		},
	}
	addTPCBCheckFlags(cmd.Flags(), &o)
	return cmd
}

// tpcbCheckMode is the check after 'tpcb run': none with --no-check.
func tpcbCheckMode(noCheck bool) string {
	if noCheck {
		return workload.CheckNone
	}
	return workload.CheckQuick
}
