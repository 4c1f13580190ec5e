package main

import (
	"io"
	"runtime"
	"time"

	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/runfile"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// addTPCCLoadFlags declares the flags of 'pgoltp tpcc load' that fill o (all
// but --schemas and --to-files).
func addTPCCLoadFlags(f *pflag.FlagSet, o *tpcc.LoadOptions) {
	f.IntVarP(&o.Warehouses, "warehouses", "w", 1, "number of warehouses (about 100 MB each with indexes)")
	f.IntVar(&o.Workers, "workers", runtime.NumCPU(), "parallel loader connections")
	f.Uint64Var(&o.Seed, "seed", 0, "random seed for reproducible data (0: draw one; it is recorded in pgoltp_meta)")
	f.StringVar(&o.Schema, "schema", tpcc.DefaultSchema, "schema to create the tables in (created if missing)")
	f.IntVar(&o.Partitions, "partitions", 0, "hash-partition the per-warehouse tables by warehouse into N partitions (0: none)")
	f.StringToIntVar(&o.Fillfactor, "fillfactor", nil, "fillfactor per table, e.g. stock=90,customer=90")
	f.BoolVar(&o.ForeignKeys, "foreign-keys", false, "add the foreign keys of clause 1.3 (slower runs)")
	f.BoolVar(&o.Force, "force", false, "drop and reload even if a complete load exists")
	f.Var(workload.PartValue{P: &o.Part}, "part", "load only part k of n (e.g. 2/4): its own range of warehouses, while n processes load one database together; every part needs the same --warehouses and --seed, part 1 also loads item, warehouse and district, and the last part to finish builds the indexes and marks the load complete")
}

// addTPCCCheckFlags declares the flags of 'pgoltp tpcc check' that fill o
// (all but --schemas and --fresh).
func addTPCCCheckFlags(f *pflag.FlagSet, o *tpcc.CheckOptions) {
	f.StringVar(&o.Schema, "schema", tpcc.DefaultSchema, "schema that holds the TPC-C tables")
	f.BoolVar(&o.Quick, "quick", false, "skip the expensive per-customer checks")
	f.IntVar(&o.Workers, "workers", runtime.NumCPU(), "parallel connections (one shared snapshot)")
	f.IntVar(&o.MaxRows, "rows", 5, "violating rows to show per failed check")
	f.StringSliceVar(&o.Only, "only", nil, "run only these checks (comma-separated names)")
}

// tpccRunFlags are the flags of 'pgoltp tpcc run' that are not RunOptions
// fields as given.
type tpccRunFlags struct {
	Weights     string // NO,P,OS,D,SL card counts; "": the 23-card deck
	Progress    int    // seconds between live lines
	Check       string // tpcc.CheckQuick, CheckFull or CheckNone
	DeliveryLog string // a file for one line per executed Delivery; "": none
	Procs       int    // CPUs the driver may use at once (driver.UseCPUs)
}

// add declares the flags of 'pgoltp tpcc run' that fill o and fl (all but
// --schemas, the group and recording flags).
func (fl *tpccRunFlags) add(f *pflag.FlagSet, o *tpcc.RunOptions) {
	f.StringVar(&o.Path, "path", tpcc.PathClient, "client (prepared statements, pipelined batches) or server (PL/pgSQL functions)")
	f.StringVar(&o.Mode, "mode", tpcc.ModeNoWait, "nowait (no keying/think times) or spec (the standard's times)")
	f.IntVar(&o.Warehouses, "warehouses", 0, "drive warehouses 1..N as home warehouses (0 = all loaded; remote ones are drawn from all loaded)")
	f.IntVar(&o.Terminals, "terminals", 0, "emulated terminals, at least one per driven warehouse (0 = 10 per warehouse)")
	f.IntVar(&o.Conns, "conns", 0, "connections the terminals share (0 = 8 in nowait mode, 1 per 50 terminals in spec mode)")
	f.IntVar(&o.DeliveryWorkers, "delivery-workers", 0, "workers executing queued Deliveries, one connection each (0 = conns/8, at least 1)")
	f.DurationVar(&o.Duration, "duration", 0, "measured time after ramp-up (0 = 1m in nowait mode, or until --txns-per-terminal / --stop-at-txns / Ctrl-C)")
	f.DurationVar(&o.Ramp, "ramp", 0, "warm-up before measuring")
	f.IntVar(&o.TxnsPerTerminal, "txns-per-terminal", 0, "stop each terminal after this many transactions (0 = no limit)")
	f.Int64Var(&o.StopAtTxns, "stop-at-txns", 0, "stop after this many transactions of all five kinds over all terminals, ramp-up included (with --duration, whichever comes first)")
	f.Float64Var(&o.Rate, "rate", 0, "limit to this many transactions per minute over all terminals (0 = unlimited)")
	f.StringVar(&fl.Weights, "weights", "", "mix as card counts NO,P,OS,D,SL (default: the 23-card deck 10,10,1,1,1); below the minimums of clause 5.2.3 the run is marked non-compliant")
	f.BoolVar(&o.AllowNonCompliant, "allow-noncompliant", false, "let spec mode run a mix below clause 5.2.3's minimums or more than 10 terminals per warehouse (marked non-compliant)")
	f.IntVar(&o.MaxRetries, "max-retries", 10, "retries of serialization failures and deadlocks (-1 = none)")
	f.StringVar(&o.Isolation, "isolation", "read-committed", "read-committed, repeatable-read or serializable (Stock-Level may run at read committed)")
	f.Float64Var(&o.KeyingScale, "keying-scale", 1, "multiply keying and think times in spec mode (1 = the standard)")
	f.IntVar(&fl.Progress, "progress", 5, "print a live line every N seconds on stderr (0 = off)")
	f.Uint64Var(&o.Seed, "seed", 0, "random seed (0 = random; printed with the result)")
	f.StringVar(&o.Schema, "schema", tpcc.DefaultSchema, "schema that holds the TPC-C tables")
	f.StringVar(&fl.DeliveryLog, "delivery-log", "", "write one line per executed Delivery to this file (clause 2.7.2.2)")
	f.IntVar(&fl.Procs, "procs", 0, "CPUs the driver may use at once (GOMAXPROCS; 0 = one per 32 connections)")
	f.StringVar(&fl.Check, "check", tpcc.CheckQuick, "consistency check after the run: quick (skips the per-customer conditions), full or none")
}

// workload reads the flags with o into the run's workload, checks it and
// sets the driver's CPUs; a bad flag is a bad-input problem.
func (fl tpccRunFlags) workload(o tpcc.RunOptions) (*tpcc.Workload, error) {
	if fl.Weights != "" {
		w, err := tpcc.ParseWeights(fl.Weights)
		if err != nil {
			return nil, problem.BadInput("pass five card counts NO,P,OS,D,SL, e.g. --weights 45,43,4,4,4", "%s", asFlags(err, nil).Error())
		}
		o.Weights = w
	}
	o.Progress = time.Duration(fl.Progress) * time.Second
	w := &tpcc.Workload{Options: o, CheckMode: fl.Check}
	if err := w.Validate(); err != nil {
		return nil, problem.BadInput("see 'pgoltp tpcc run --help'", "%s", asFlags(err, tpccRunFlagNames).Error())
	}
	if err := driver.UseCPUs(fl.Procs, w.Options.AllConns()); err != nil {
		return nil, problem.BadInput("see 'pgoltp tpcc run --help'", "%s", err.Error())
	}
	return w, nil
}

// outputs sends w's live lines to progress and opens the delivery log; the
// returned close ends it.
func (fl tpccRunFlags) outputs(w *tpcc.Workload, progress io.Writer) (close func(), err error) {
	if w.Options.Progress > 0 {
		w.Options.ProgressOut = progress
	}
	if fl.DeliveryLog == "" {
		return func() {}, nil
	}
	file, err := runfile.Create(fl.DeliveryLog)
	if err != nil {
		return nil, problem.Wrap(err, "pass a writable --delivery-log path", "cannot create the delivery log")
	}
	w.Options.DeliveryLog = file
	return func() { file.Close() }, nil
}
