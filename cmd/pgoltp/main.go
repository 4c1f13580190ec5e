// Command pgoltp is a PostgreSQL OLTP benchmarking and tuning lab: it starts a
// throwaway PostgreSQL or uses an existing one, loads TPC-C or TPC-B, drives it,
// collects statistics, checks consistency, reports, compares and tunes.
//
// This package is deliberately thin: it parses flags and calls the packages
// under internal/. Each command group lives in its own file and registers
// itself with rootCmd from an init function.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// globalOptions are the flags every command accepts.
type globalOptions struct {
	lab     string // directory of the managed cluster, results and reports
	dsn     string // external server instead of the managed cluster
	json    bool   // machine-readable output
	verbose int
}

var global globalOptions

var rootCmd = &cobra.Command{
	Use:   "pgoltp",
	Short: "PostgreSQL OLTP benchmarking and tuning lab (TPC-C, TPC-B)",
	Long: `pgoltp starts a throwaway PostgreSQL or points at yours, loads TPC-C or TPC-B,
drives it with live progress, collects OS and PostgreSQL statistics, verifies
consistency afterwards, writes a report, compares runs and tunes settings.`,
	SilenceUsage:  true,
	SilenceErrors: true,
}

func init() {
	pf := rootCmd.PersistentFlags()
	pf.StringVar(&global.lab, "lab", "./pgoltp-lab", "lab directory: managed cluster, results and reports")
	pf.StringVar(&global.dsn, "dsn", "", "use this PostgreSQL server (URL or key=value DSN) instead of the managed cluster")
	pf.BoolVar(&global.json, "json", false, "machine-readable JSON output")
	pf.CountVarP(&global.verbose, "verbose", "v", "say which server is used, and on failure the chain of causes")
	rootCmd.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return problem.BadInput(fmt.Sprintf("run '%s --help' for the flags", cmd.CommandPath()), "%s", err.Error())
	})
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := rootCmd.ExecuteContext(ctx); err != nil {
		code := problem.Print(os.Stderr, problem.Usage(err), global.verbose > 0)
		stop()
		os.Exit(code)
	}
}

func init() {
	rootCmd.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the pgoltp version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := "(devel)"
			if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
				v = bi.Main.Version
			}
			fmt.Fprintln(cmd.OutOrStdout(), "pgoltp", v)
			return nil
		},
	})
}
