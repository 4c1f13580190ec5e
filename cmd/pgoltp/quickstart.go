package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// quickstart is the whole loop in one command: a managed cluster, a TPC-C
// load, a measured run with the collectors on, the consistency check, and the
// HTML report.
func init() {
	var (
		warehouses int
		duration   time.Duration
		path       string
		major      int
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
			if warehouses < 1 {
				return problem.BadInput("pass --warehouses 1 or more", "--warehouses %d is too small", warehouses)
			}
			if duration < 5*time.Second {
				return problem.BadInput("pass --duration 5s or more", "--duration %s is too short to measure", duration)
			}
			w := &tpcc.Workload{CheckMode: tpcc.CheckFull, Options: tpcc.RunOptions{Path: path, Mode: tpcc.ModeNoWait,
				Duration: duration, Ramp: 5 * time.Second, Progress: 5 * time.Second, ProgressOut: cmd.ErrOrStderr()}}
			if err := w.Validate(); err != nil {
				return problem.BadInput("see 'pgoltp quickstart --help'", "%s", err.Error())
			}
			ctx := cmd.Context()
			stderr := cmd.ErrOrStderr()
			dsn := global.dsn
			if dsn == "" {
				fmt.Fprintf(stderr, "== 1/5 managed PostgreSQL in %s\n", global.lab)
				unlock, err := lockLab()
				if err != nil {
					return err
				}
				_, err = cluster.Up(ctx, cluster.Options{Lab: global.lab, Major: major, Progress: stderr})
				unlock()
				if err != nil {
					return err
				}
			}
			dsn, err := targetDSN(ctx)
			if err != nil {
				return err
			}
			fmt.Fprintf(stderr, "== 2/5 loading TPC-C, %d warehouses\n", warehouses)
			st, err := tpcc.Load(ctx, dsn, tpcc.LoadOptions{Warehouses: warehouses, Progress: stderr, ProgressBar: term.IsTerminal(int(os.Stderr.Fd()))})
			if errors.Is(err, tpcc.ErrLoadExists) {
				return problem.BadInput("run 'pgoltp tpcc load --force --warehouses N' to replace it, or pass the same --warehouses", "%s", err.Error())
			}
			if err != nil {
				return err
			}
			if st.AlreadyLoaded {
				fmt.Fprintln(stderr, "   already loaded: reusing it")
			}
			fmt.Fprintf(stderr, "== 3/5 running TPC-C (%s path, no-wait) for %s after a 5s ramp-up\n", path, duration)
			out, err := recorder.Run(ctx, dsn, w, recordOptions(true))
			if err != nil {
				return err
			}
			fmt.Fprintln(stderr, "== 4/5 consistency")
			if rep := tpcc.CheckReportOf(out.Check); rep != nil {
				_ = rep.WriteText(stderr)
			}
			fmt.Fprintln(stderr, "== 5/5 report")
			if err := out.Result.Detail.(*tpcc.RunResult).WriteSummary(cmd.OutOrStdout()); err != nil {
				return err
			}
			if err := writeRunReport(cmd, out.RunID, "", "html"); err != nil {
				return err
			}
			return checkVerdict("tpcc", out.Check)
		},
	}
	f := cmd.Flags()
	f.IntVar(&warehouses, "warehouses", 2, "TPC-C warehouses to load")
	f.DurationVar(&duration, "duration", time.Minute, "measured time of the run")
	f.StringVar(&path, "path", tpcc.PathClient, "client (prepared statements) or server (PL/pgSQL functions)")
	f.IntVar(&major, "pg", 0, "PostgreSQL major of the managed cluster (default: the newest installed)")
	rootCmd.AddCommand(cmd)
}
