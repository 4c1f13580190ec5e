package tpcc

import (
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/runfile"
)

// RunFlags are the flags of `pgoltp tpcc run` that are not RunOptions
// fields as given.
type RunFlags struct {
	Weights     string // NO,P,OS,D,SL card counts; "": the 23-card deck
	Progress    int    // seconds between live lines
	Check       string // CheckQuick, CheckFull or CheckNone
	DeliveryLog string // a file for one line per executed Delivery; "": none
	Procs       int    // CPUs the driver may use at once (driver.UseCPUs)
}

// AddFlags declares the flags of 'pgoltp tpcc run' that fill o and fl
// (all but --schemas, the group and recording flags).
func (fl *RunFlags) AddFlags(f *pflag.FlagSet, o *RunOptions) {
	f.StringVar(&o.Path, "path", PathClient, "client (prepared statements, pipelined batches) or server (PL/pgSQL functions)")
	f.StringVar(&o.Mode, "mode", ModeNoWait, "nowait (no keying/think times) or spec (the standard's times)")
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
	f.StringVar(&o.Schema, "schema", DefaultSchema, "schema that holds the TPC-C tables")
	f.StringVar(&fl.DeliveryLog, "delivery-log", "", "write one line per executed Delivery to this file (clause 2.7.2.2)")
	f.IntVar(&fl.Procs, "procs", 0, "CPUs the driver may use at once (GOMAXPROCS; 0 = one per 32 connections)")
	f.StringVar(&fl.Check, "check", CheckQuick, "consistency check after the run: quick (skips the per-customer conditions), full or none")
}

// Workload reads the flags with o into the run's workload, checks it and
// sets the driver's CPUs; a bad flag is a bad-input problem.
func (f RunFlags) Workload(o RunOptions) (*Workload, error) {
	if f.Weights != "" {
		w, err := ParseWeights(f.Weights)
		if err != nil {
			return nil, problem.BadInput("pass five card counts NO,P,OS,D,SL, e.g. --weights 45,43,4,4,4", "%s", err.Error())
		}
		o.Weights = w
	}
	o.Progress = time.Duration(f.Progress) * time.Second
	w := &Workload{Options: o, CheckMode: f.Check}
	if err := w.Validate(); err != nil {
		return nil, problem.BadInput("see 'pgoltp tpcc run --help'", "%s", err.Error())
	}
	if err := driver.UseCPUs(f.Procs, w.Options.AllConns()); err != nil {
		return nil, problem.BadInput("see 'pgoltp tpcc run --help'", "%s", err.Error())
	}
	return w, nil
}

// Outputs sends w's live lines to progress and opens the delivery log; the
// returned close ends it.
func (f RunFlags) Outputs(w *Workload, progress io.Writer) (close func(), err error) {
	if w.Options.Progress > 0 {
		w.Options.ProgressOut = progress
	}
	if f.DeliveryLog == "" {
		return func() {}, nil
	}
	file, err := runfile.Create(f.DeliveryLog)
	if err != nil {
		return nil, problem.Wrap(err, "pass a writable --delivery-log path", "cannot create the delivery log")
	}
	w.Options.DeliveryLog = file
	return func() { file.Close() }, nil
}
