package main

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/livemetrics"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

func init() {
	tpccCmd.AddCommand(tpccRunCommand())
}

// tpccRunLong is the help of 'tpcc run'.
const tpccRunLong = `Run the five TPC-C transactions (clause 2) from emulated terminals, each with a
fixed home warehouse, sharing --conns connections: by default 10 terminals per
warehouse in both modes, so every warehouse is driven (--warehouses N drives
only the first N). --mode spec uses the keying and think times of the standard
(efficiency against the ceiling for the mix: 12.86 tpmC per warehouse for
45/43/4/4/4); --mode nowait runs them back to back, as tuning studies do.
--path client sends prepared statements in pipelined batches; --path server
calls PL/pgSQL functions that pgoltp installs, one round trip per transaction.

A live line is printed every --progress seconds on stderr; Ctrl-C stops the run
cleanly and still prints the summary.`

// tpccRunCommand is "pgoltp tpcc run": drive a loaded database with the five
// transactions and report tpmC, latencies, errors and the input audits.
func tpccRunCommand() *cobra.Command {
	var (
		opts       tpcc.RunOptions
		fl         tpccRunFlags
		rr         recordFlags
		cpuProfile string
		grp        groupFlags
		props      string
		via        viaFlag
		reads      readsFlag
		metricsAt  string
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the TPC-C workload on a loaded database and report tpmC",
		Long:  tpccRunLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := applyProps(cmd, props, "run"); err != nil {
				return err
			}
			w, err := fl.workload(opts)
			if err != nil {
				return err
			}
			if err := reads.needsReadOnlyWork(w.Options.HasReadOnlyWork(), "give Order-Status or Stock-Level weight in --weights"); err != nil {
				return err
			}
			ro := recordOptions(true)
			if err := rr.apply(&ro, cmd.Flags(), w.Options.Ramp+w.Options.Duration); err != nil {
				return err
			}
			if err := joinGroup(&ro, grp, &w.Options.Part); err != nil {
				return err
			}
			stopLive, err := startLive(metricsAt, &ro, livemetrics.Info{Workload: w.Kind(), Path: w.Options.Path, Mode: w.Options.Mode},
				cmd.ErrOrStderr(), livemetrics.Rate{Figure: "tpmC", Type: "new_order", Per: time.Minute})
			if err != nil {
				return err
			}
			defer stopLive()
			dsn, err := tpccTarget(cmd.Context(), &via, reads, w, &ro)
			if err != nil {
				return err
			}
			closeLog, err := fl.outputs(w, cmd.ErrOrStderr())
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
				return tpccStartProblem(cmd.Context(), asFlags(err, tpccRunFlagNames))
			}
			return printTPCCRun(cmd.OutOrStdout(), out)
		},
	}
	f := cmd.Flags()
	fl.add(f, &opts)
	grp.add(f, "warehouses (remote ones still from all loaded)")
	addSchemasFlag(cmd, &opts.Schema, &opts.Schemas, schemasRunUsage)
	rr.add(f, "store the run in the results store with OS and PostgreSQL statistics sampled around it (--record=false for bare driver-CPU measurements)")
	addPropsFlag(f, &props)
	via.add(cmd)
	reads.add(cmd, "Order-Status and Stock-Level")
	addMetricsFlag(f, &metricsAt)
	f.StringVar(&cpuProfile, "cpuprofile", "", "write a Go CPU profile of the driver to this file")
	_ = f.MarkHidden("cpuprofile")
	return cmd
}

// tpccTarget is the server the run writes to (the data path as --via says)
// and, with --reads or --read-dsn, the standbys it reads from, checked
// against the run's options; the collectors read the standbys
// (collectStandbys).
func tpccTarget(ctx context.Context, via *viaFlag, reads readsFlag, w *tpcc.Workload, ro *recorder.Options) (string, error) {
	dsn, err := via.target(ctx, ro)
	if w.Options.Pooled = via.Unpooled; err != nil {
		return "", err
	}
	if w.Options.Reads, err = reads.resolve(ctx, dsn); err != nil {
		return "", err
	}
	if err := collectStandbys(ro, w.Options.Reads); err != nil {
		return "", err
	}
	return dsn, asFlags(w.Options.Validate(), tpccRunFlagNames)
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
	return checkVerdict(tpccCmd.Name(), out.Check)
}
