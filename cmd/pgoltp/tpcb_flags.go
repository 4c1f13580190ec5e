package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/workload/tpcb"
)

// addTPCBLoadFlags declares the flags of 'pgoltp tpcb load' (pgbench -i's).
func addTPCBLoadFlags(f *pflag.FlagSet, o *tpcb.LoadOptions) {
	f.IntVarP(&o.Scale, "scale", "s", 1, "scale factor: 100000 accounts, 10 tellers and 1 branch per unit")
	f.IntVarP(&o.Fillfactor, "fillfactor", "F", 100, "fillfactor of pgbench_accounts, tellers and branches (10-100)")
	f.IntVar(&o.Partitions, "partitions", 0, "partition pgbench_accounts into this many partitions")
	f.StringVar((*string)(&o.PartitionMethod), "partition-method", "", "range or hash (default range when --partitions is given)")
	f.BoolVar(&o.ExtraIndex, "extra-index", false, "also index pgbench_accounts (bid, abalance): makes every update non-HOT")
	f.BoolVar(&o.ForeignKeys, "foreign-keys", false, "create the foreign keys between the tables (pgbench -I f)")
	f.BoolVar(&o.Unlogged, "unlogged-tables", false, "create the tables unlogged")
	f.IntVarP(&o.Jobs, "jobs", "j", 0, "parallel connections (default: number of CPUs, at least 2)")
}

// addTPCBCheckFlags declares the flags of 'pgoltp tpcb check'.
func addTPCBCheckFlags(f *pflag.FlagSet, o *tpcb.CheckOptions) {
	f.BoolVarP(&o.SkipSomeUpdates, "skip-some-updates", "N", false, "the database has seen -N runs: do not compare tellers with history")
	f.Int64Var(&o.ExpectHistory, "expect-history", -1, "the number of history rows there must be (-1 = do not check)")
}

// tpcbRunFlags are the pgbench-style flags of 'pgoltp tpcb run' that are not
// RunOptions fields as given: script switches, pgbench's duration forms,
// seconds of progress and max-tries where 0 means unlimited.
type tpcbRunFlags struct {
	Protocol, Builtin      string
	SkipSome, SelectOnly   bool   // -N, -S
	Duration, LatencyLimit string // seconds / milliseconds, or Go durations
	Progress               int    // seconds
	MaxTries               int    // 0: unlimited
}

// add declares the flags of 'pgoltp tpcb run' that fill o and fl
// (pgbench's where pgbench has them; all but the group and recording flags).
func (fl *tpcbRunFlags) add(f *pflag.FlagSet, o *tpcb.RunOptions) {
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
	f.DurationVar(&o.SnapshotEach, "snapshot-interval", time.Minute, "keep a histogram snapshot of every window this long (past 30 windows, neighbours merge)")
	f.DurationVar(&o.SeriesEach, "series-interval", time.Second, "length of one point of the throughput/latency series")
}

// apply reads the flags into o; a bad one is a bad-input problem.
func (fl tpcbRunFlags) apply(o *tpcb.RunOptions) error {
	bad := func(err error) error {
		return problem.BadInput("run 'pgoltp tpcb run --help' for the flags", "%s", err)
	}
	o.Protocol = tpcb.Protocol(fl.Protocol)
	o.Script = tpcb.Script(fl.Builtin)
	switch {
	case fl.SkipSome && fl.SelectOnly:
		return bad(fmt.Errorf("--skip-some-updates and --select-only exclude each other"))
	case fl.SkipSome:
		o.Script = tpcb.ScriptSimpleUpdate
	case fl.SelectOnly:
		o.Script = tpcb.ScriptSelectOnly
	}
	var err error
	if o.Duration, err = tpcb.ParseDuration(fl.Duration, time.Second); err != nil {
		return bad(fmt.Errorf("invalid --duration %q: give seconds (60) or a duration (90m, 24h)", fl.Duration))
	}
	if o.LatencyLimit, err = tpcb.ParseDuration(fl.LatencyLimit, time.Millisecond); err != nil {
		return bad(fmt.Errorf("invalid --latency-limit %q: give milliseconds (50) or a duration (50ms)", fl.LatencyLimit))
	}
	o.Progress = time.Duration(fl.Progress) * time.Second
	if fl.MaxTries < 0 {
		return bad(fmt.Errorf("invalid --max-tries %d: 0 (unlimited) or more", fl.MaxTries))
	}
	o.MaxTries = fl.MaxTries
	if fl.MaxTries == 0 {
		o.MaxTries = -1
	}
	if err := o.Validate(); err != nil {
		return bad(asFlags(err, tpcbRunFlagNames))
	}
	return nil
}
