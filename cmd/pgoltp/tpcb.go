package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/group"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/recorder"
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
				return problem.BadInput("run 'pgoltp tpcb load --help' for the flags", "%s", err)
			}
			dsn, err := targetDSN(cmd.Context())
			if err != nil {
				return err
			}
			if !global.json {
				o.Log = os.Stderr
			}
			res, err := tpcb.Load(cmd.Context(), dsn, o)
			if err != nil {
				return fmt.Errorf("tpcb load: %w", err)
			}
			if global.json {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVarP(&o.Scale, "scale", "s", 1, "scale factor: 100000 accounts, 10 tellers and 1 branch per unit")
	f.IntVarP(&o.Fillfactor, "fillfactor", "F", 100, "fillfactor of pgbench_accounts, tellers and branches (10-100)")
	f.IntVar(&o.Partitions, "partitions", 0, "partition pgbench_accounts into this many partitions")
	f.StringVar((*string)(&o.PartitionMethod), "partition-method", "", "range or hash (default range when --partitions is given)")
	f.BoolVar(&o.ExtraIndex, "extra-index", false, "also index pgbench_accounts (bid, abalance): makes every update non-HOT")
	f.BoolVar(&o.ForeignKeys, "foreign-keys", false, "create the foreign keys between the tables (pgbench -I f)")
	f.BoolVar(&o.Unlogged, "unlogged-tables", false, "create the tables unlogged")
	f.IntVarP(&o.Jobs, "jobs", "j", 0, "parallel connections (default: number of CPUs, at least 2)")
	return cmd
}

func newTPCBRunCmd() *cobra.Command {
	var (
		o   tpcb.RunOptions
		fl  tpcb.Flags
		rr  runRecording
		grp group.Flags
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
			if err := fl.Apply(&o); err != nil {
				return err
			}
			ro, err := rr.options(cmd, o.Duration)
			if err != nil {
				return err
			}
			err = ro.JoinGroup(grp, &o.Part)
			if err != nil {
				return err
			}
			// -j is pgbench's thread count: here the event loops, each on its
			// own thread, plus one for the rest of the process (progress,
			// aggregation), so both tools use the same number of CPUs.
			_ = driver.UseCPUs(o.Jobs+1, o.Clients)
			dsn, err := targetDSN(cmd.Context())
			if err != nil {
				return err
			}
			if o.Progress > 0 {
				o.Out = os.Stderr
			}
			out, err := recorder.Run(cmd.Context(), dsn, &tpcb.Workload{Options: o, SkipCheck: o.NoCheck}, ro)
			if err != nil {
				return tpcb.Problem("tpcb run", err)
			}
			res := out.Result.Detail.(*tpcb.RunResult)
			if err := emit(cmd.OutOrStdout(), res, func(w io.Writer) error { res.WriteSummary(w); return nil }); err != nil {
				return err
			}
			return res.Verdict()
		},
	}
	f := cmd.Flags()
	f.IntVarP(&o.Clients, "clients", "c", 1, "number of concurrent clients (connections)")
	f.IntVarP(&o.Jobs, "jobs", "j", 1, "number of threads (event loops over the clients), like pgbench -j")
	f.StringVarP(&fl.Protocol, "protocol", "M", "simple", "protocol: simple, extended or prepared")
	f.StringVarP(&fl.Builtin, "builtin", "b", "tpcb-like", "built-in script: tpcb-like, simple-update or select-only")
	f.BoolVarP(&fl.SkipSome, "skip-some-updates", "N", false, "the simple-update script: no tellers/branches updates")
	f.BoolVarP(&fl.SelectOnly, "select-only", "S", false, "the select-only script")
	f.Float64VarP(&o.Rate, "rate", "R", 0, "target rate in transactions per second over all clients (0 = as fast as possible)")
	f.StringVarP(&fl.LatencyLimit, "latency-limit", "L", "", "count transactions above this latency (ms); with --rate, skip those already late")
	f.IntVar(&fl.MaxTries, "max-tries", 1, "tries per transaction on serialization failures and deadlocks (0 = unlimited)")
	f.IntVarP(&o.Transactions, "transactions", "t", 0, "transactions per client (default 10 without --duration)")
	f.StringVarP(&fl.Duration, "duration", "T", "", "run this long: seconds (60) or a duration (90m, 24h)")
	f.Int64Var(&o.StopAtTxns, "stop-at-txns", 0, "stop after this many transactions over all clients (committed or failed; instead of -t; with -T, whichever comes first)")
	f.IntVarP(&fl.Progress, "progress", "P", 0, "print progress every N seconds to stderr")
	f.StringVar(&o.Isolation, "isolation", "", "default_transaction_isolation of the clients: read-committed, repeatable-read or serializable")
	f.BoolVarP(&o.NoVacuum, "no-vacuum", "n", false, "do not vacuum pgbench_tellers and pgbench_branches before the run")
	f.BoolVar(&o.TruncateHistory, "truncate-history", false, "empty pgbench_history before the run, as pgbench does (skipped with -n)")
	f.BoolVar(&o.NoCheck, "no-check", false, "do not check balances and history after the run")
	f.Uint64Var(&o.Seed, "random-seed", 0, "random seed (0 = from the clock)")
	f.DurationVar(&o.SnapshotEach, "snapshot-interval", time.Minute, "keep a histogram snapshot of every window this long")
	f.DurationVar(&o.SeriesEach, "series-interval", time.Second, "length of one point of the throughput/latency series")
	rr.addFlags(f, "store the run in the results store with OS and PostgreSQL statistics sampled around it (--record=false for bare driver-CPU comparisons)")
	grp.AddFlags(f, "branches: each transaction draws its branch uniformly from the part's range (pgbench draws from all), accounts and tellers from all")
	return cmd
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
				return err
			}
			dsn, err := targetDSN(cmd.Context())
			if err != nil {
				return err
			}
			res, err := tpcb.Check(cmd.Context(), dsn, o)
			if err != nil {
				return tpcb.Problem("tpcb check", err)
			}
			if err := emit(cmd.OutOrStdout(), res, func(w io.Writer) error { res.WriteText(w); return nil }); err != nil {
				return err
			}
			return res.Verdict()
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&o.SkipSomeUpdates, "skip-some-updates", "N", false, "the database has seen -N runs: do not compare tellers with history")
	f.Int64Var(&o.ExpectHistory, "expect-history", -1, "the number of history rows there must be (-1 = do not check)")
	return cmd
}
