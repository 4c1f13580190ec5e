package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/group"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

func init() {
	tpccCmd.AddCommand(tpccRunCommand())
}

// tpccRunCommand is "pgoltp tpcc run": drive a loaded database with the five
// transactions and report tpmC, latencies, errors and the input audits.
func tpccRunCommand() *cobra.Command {
	var (
		opts       tpcc.RunOptions
		fl         tpcc.RunFlags
		rr         runRecording
		cpuProfile string
		grp        group.Flags
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the TPC-C workload on a loaded database and report tpmC",
		Long: `Run the five TPC-C transactions (clause 2) from emulated terminals, each with a
fixed home warehouse, sharing --conns connections: by default 10 terminals per
warehouse in both modes, so every warehouse is driven (--warehouses N drives
only the first N). --mode spec uses the keying and think times of the standard
(efficiency against the ceiling for the mix: 12.86 tpmC per warehouse for
45/43/4/4/4); --mode nowait runs them back to back, as tuning studies do.
--path client sends prepared statements in pipelined batches; --path server
calls PL/pgSQL functions that pgoltp installs, one round trip per transaction.

A live line is printed every --progress seconds on stderr; Ctrl-C stops the run
cleanly and still prints the summary.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w, err := fl.Workload(opts)
			if err != nil {
				return err
			}
			ro, err := rr.options(cmd, w.Options.Ramp+w.Options.Duration)
			if err != nil {
				return err
			}
			if err := ro.JoinGroup(grp, &w.Options.Part); err != nil {
				return err
			}
			dsn, err := targetDSN(cmd.Context())
			if err != nil {
				return err
			}
			closeLog, err := fl.Outputs(w, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeLog()
			stopProfile, err := driver.StartCPUProfile(cpuProfile)
			if err != nil {
				return err
			}
			defer stopProfile()
			out, err := recorder.Run(cmd.Context(), dsn, w, ro)
			if err != nil {
				return tpcc.StartProblem(cmd.Context(), err)
			}
			return printTPCCRun(cmd.OutOrStdout(), out)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Path, "path", tpcc.PathClient, "client (prepared statements, pipelined batches) or server (PL/pgSQL functions)")
	f.StringVar(&opts.Mode, "mode", tpcc.ModeNoWait, "nowait (no keying/think times) or spec (the standard's times)")
	f.IntVar(&opts.Warehouses, "warehouses", 0, "drive warehouses 1..N as home warehouses (0 = all loaded; remote ones are drawn from all loaded)")
	f.IntVar(&opts.Terminals, "terminals", 0, "emulated terminals, at least one per driven warehouse (0 = 10 per warehouse)")
	f.IntVar(&opts.Conns, "conns", 0, "connections the terminals share (0 = 8 in nowait mode, 1 per 50 terminals in spec mode)")
	f.IntVar(&opts.DeliveryWorkers, "delivery-workers", 0, "workers executing queued Deliveries, one connection each (0 = conns/8, at least 1)")
	f.DurationVar(&opts.Duration, "duration", 0, "measured time after ramp-up (0 = 1m in nowait mode, or until --txns-per-terminal / --stop-at-txns / Ctrl-C)")
	f.DurationVar(&opts.Ramp, "ramp", 0, "warm-up before measuring")
	f.IntVar(&opts.TxnsPerTerminal, "txns-per-terminal", 0, "stop each terminal after this many transactions (0 = no limit)")
	f.Int64Var(&opts.StopAtTxns, "stop-at-txns", 0, "stop after this many transactions of all five kinds over all terminals, ramp-up included (with --duration, whichever comes first)")
	f.Float64Var(&opts.Rate, "rate", 0, "limit to this many transactions per minute over all terminals (0 = unlimited)")
	f.StringVar(&fl.Weights, "weights", "", "mix as card counts NO,P,OS,D,SL (default: the 23-card deck 10,10,1,1,1); below the minimums of clause 5.2.3 the run is marked non-compliant")
	f.BoolVar(&opts.AllowNonCompliant, "allow-noncompliant", false, "let spec mode run a mix below clause 5.2.3's minimums or more than 10 terminals per warehouse (marked non-compliant)")
	f.IntVar(&opts.MaxRetries, "max-retries", 10, "retries of serialization failures and deadlocks (-1 = none)")
	f.StringVar(&opts.Isolation, "isolation", "read-committed", "read-committed, repeatable-read or serializable (Stock-Level may run at read committed)")
	f.Float64Var(&opts.KeyingScale, "keying-scale", 1, "multiply keying and think times in spec mode (1 = the standard)")
	grp.AddFlags(f, "warehouses (remote ones still from all loaded)")
	f.IntVar(&fl.Progress, "progress", 5, "print a live line every N seconds on stderr (0 = off)")
	f.Uint64Var(&opts.Seed, "seed", 0, "random seed (0 = random; printed with the result)")
	f.StringVar(&opts.Schema, "schema", tpcc.DefaultSchema, "schema that holds the TPC-C tables")
	addSchemasFlag(cmd, &opts.Schema, &opts.Schemas, tpcc.SchemasRunUsage)
	f.StringVar(&fl.DeliveryLog, "delivery-log", "", "write one line per executed Delivery to this file (clause 2.7.2.2)")
	f.IntVar(&fl.Procs, "procs", 0, "CPUs the driver may use at once (GOMAXPROCS; 0 = one per 32 connections)")
	f.StringVar(&fl.Check, "check", tpcc.CheckQuick, "consistency check after the run: quick (skips the per-customer conditions), full or none")
	rr.addFlags(f, "store the run in the results store with OS and PostgreSQL statistics sampled around it (--record=false for bare driver-CPU measurements)")
	f.StringVar(&cpuProfile, "cpuprofile", "", "write a Go CPU profile of the driver to this file")
	_ = f.MarkHidden("cpuprofile")
	return cmd
}

// printTPCCRun prints the run with its check (or both as JSON) and turns a
// failed check into exit code 1.
func printTPCCRun(w io.Writer, out *recorder.Outcome) error {
	res := out.Result.Detail.(*tpcc.RunResult)
	rep := tpcc.CheckReportOf(out.Check)
	asJSON := struct {
		*tpcc.RunResult
		RunID string            `json:"run_id,omitempty"`
		Check *tpcc.CheckReport `json:"check,omitempty"`
	}{res, out.RunID, rep}
	if err := emit(w, asJSON, func(w io.Writer) error { return res.WriteWithCheck(w, rep) }); err != nil {
		return err
	}
	return checkVerdict("tpcc", out.Check)
}
