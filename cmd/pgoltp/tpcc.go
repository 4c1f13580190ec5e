package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// tpccCmd groups the TPC-C commands: load and check live here, run is added
// by the driver's own file.
var tpccCmd = &cobra.Command{
	Use:   "tpcc",
	Short: "TPC-C: load the schema and data, run the workload, check consistency",
	Long: `TPC-C (standard revision 5.11): the nine spec tables with spec column names,
a fast parallel COPY loader, the five transactions, and the consistency
conditions of clause 3.3.2.`,
}

func init() {
	rootCmd.AddCommand(tpccCmd)
	tpccCmd.AddCommand(tpccLoadCommand(), tpccCheckCommand())
}

func tpccLoadCommand() *cobra.Command {
	var opts tpcc.LoadOptions
	var toFiles, props string
	cmd := &cobra.Command{
		Use:   "load",
		Short: "Create the TPC-C tables and load the initial population (clause 4.3)",
		Long: `Create the nine TPC-C tables and load the initial population of clause 4.3.3.1.

Parallel workers stream the rows with binary COPY, then build the primary keys
and indexes in parallel and ANALYZE. The load is recorded in table pgoltp_meta
(warehouses, seed, NURand C_LOAD) and marked complete only at the very end. A
load that was interrupted (even killed) is resumed by the next 'tpcc load' of the
same warehouses: each COPY job commits its rows with a completion mark, and the
parts marked done are checked (rows per warehouse) and kept, not loaded again.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := applyProps(cmd, props, "load"); err != nil {
				return err
			}
			if err := opts.Validate(); err != nil {
				return problem.BadInput("see 'pgoltp tpcc load --help'", "%s", asFlags(err, nil).Error())
			}
			out := cmd.OutOrStdout()
			if toFiles != "" && len(opts.Schemas) > 0 {
				return problem.BadInput("drop --schemas, or --to-files to load them", "--to-files writes one database's files, not several schemas")
			}
			if toFiles != "" {
				st, err := tpcc.WriteFiles(cmd.Context(), toFiles, opts)
				if err != nil {
					return asFlags(err, nil)
				}
				return emit(out, st, func(w io.Writer) error {
					_, err := fmt.Fprintf(w, "wrote %d rows of %d warehouses (seed %d) as COPY text files in %s in %.1fs\n",
						st.TotalRows(), st.Warehouses, st.Seed, toFiles, st.Total.Seconds())
					return err
				})
			}
			dsn, err := targetDSN(cmd.Context())
			if err != nil {
				return err
			}
			if opts.FreeDisk, err = loadFreeDisk(); err != nil {
				return err
			}
			errOut := cmd.ErrOrStderr()
			opts.Progress = errOut
			if f, ok := errOut.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
				opts.ProgressBar = true
			}
			st, err := tpcc.Load(cmd.Context(), dsn, opts)
			if err := tpccLoadProblem(cmd.Context(), asFlags(err, nil)); err != nil {
				return err
			}
			return emit(out, st, func(w io.Writer) error { st.WriteText(w); return nil })
		},
	}
	f := cmd.Flags()
	addTPCCLoadFlags(f, &opts)
	addSchemasFlag(cmd, &opts.Schema, &opts.Schemas, schemasLoadUsage)
	addPropsFlag(f, &props)
	f.StringVar(&toFiles, "to-files", "", "write the data as COPY text files to this directory instead of loading (for benchmarks)")
	return cmd
}

func tpccCheckCommand() *cobra.Command {
	var opts tpcc.CheckOptions
	var fresh string
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Verify the consistency conditions of clause 3.3.2 (exit 1 if any fails)",
		Long: `Verify the twelve consistency conditions of TPC-C clause 3.3.2, the balance
Σ w_ytd = Σ c_ytd_payment, orphan rows and the fixed cardinalities, all in one
REPEATABLE READ snapshot shared by parallel connections. Condition 11 holds only
on a freshly loaded database: --fresh auto decides from the data.

Checks: ` + strings.Join(tpcc.CheckNames(), ", "),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.Validate(fresh); err != nil {
				return badFlag(err, nil, "")
			}
			dsn, err := targetDSN(cmd.Context())
			if err != nil {
				return err
			}
			rep, err := tpcc.Check(cmd.Context(), dsn, opts)
			if err := tpccCheckProblem(asFlags(err, nil)); err != nil {
				return err
			}
			if err := emit(cmd.OutOrStdout(), rep, func(w io.Writer) error { _ = rep.WriteText(w); return nil }); err != nil {
				return err
			}
			return rep.Verdict()
		},
	}
	f := cmd.Flags()
	addTPCCCheckFlags(f, &opts)
	addSchemasFlag(cmd, &opts.Schema, &opts.Schemas, schemasCheckUsage)
	f.StringVar(&fresh, "fresh", "auto", "run the load-only check (condition 11): auto, yes or no")
	return cmd
}
