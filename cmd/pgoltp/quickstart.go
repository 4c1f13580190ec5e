package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/livemetrics"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/quickstart"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// quickstart is the whole loop in one command: a managed cluster, a TPC-C
// load, a measured run with the collectors on, the consistency check, and the
// HTML report.
func init() {
	var (
		o         quickstart.Options
		major     int
		metricsAt string
	)
	cmd := &cobra.Command{
		Use:   "quickstart",
		Short: "Start a managed PostgreSQL, load TPC-C, run it, check it and write the report",
		Long: `The whole loop in one command, on the lab's managed cluster (or --dsn):
load TPC-C (skipped when the same load is already there), run it in no-wait
mode with live progress while OS and PostgreSQL statistics are collected, check
the consistency conditions of clause 3.3.2, store the run and write its HTML
report into <lab>/reports.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Log, o.ProgressBar = cmd.ErrOrStderr(), term.IsTerminal(int(os.Stderr.Fd()))
			if err := o.Validate(); err != nil {
				return badFlag(err, nil, "see 'pgoltp quickstart --help'")
			}
			ctx := cmd.Context()
			if global.dsn == "" {
				fmt.Fprintf(o.Log, "== 1/5 managed PostgreSQL in %s\n", global.lab)
				opts := cluster.Options{Lab: global.lab, Major: major, Progress: o.Log}
				if _, err := cluster.Ready(ctx, opts, commandName(), workDatabase); err != nil {
					return err
				}
			}
			dsn, err := targetDSN(ctx)
			if err != nil {
				return err
			}
			if o.FreeDisk, err = loadFreeDisk(); err != nil {
				return err
			}
			ro := recordOptions(true)
			recordInstallation(&ro)
			stopLive, err := startLive(metricsAt, &ro, livemetrics.Info{Workload: tpccCmd.Name(), Path: o.Path, Mode: tpcc.ModeNoWait}, o.Log,
				livemetrics.Rate{Figure: "tpmC", Type: "new_order", Per: time.Minute})
			if err != nil {
				return err
			}
			defer stopLive()
			out, err := quickstart.Run(ctx, dsn, &o, ro, cmd.OutOrStdout())
			if errors.Is(err, tpcc.ErrLoadExists) {
				return problem.BadInput("run 'pgoltp tpcc load --force --warehouses N' to replace it, or pass the same --warehouses", "%s", err.Error())
			}
			if err != nil {
				return err
			}
			if err := writeRunReport(cmd, out.RunID, "", "html"); err != nil {
				return err
			}
			return checkVerdict(tpccCmd.Name(), out.Check)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Warehouses, "warehouses", 2, "TPC-C warehouses to load")
	f.DurationVar(&o.Duration, "duration", time.Minute, "measured time of the run")
	f.StringVar(&o.Path, "path", tpcc.PathClient, "client (prepared statements) or server (PL/pgSQL functions)")
	f.IntVar(&major, "pg", 0, majorFlagHelp)
	addMetricsFlag(f, &metricsAt)
	rootCmd.AddCommand(cmd)
}
