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
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
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
	err := rootCmd.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgoltp: "+oneLine(asProblem(err).Error()))
		if global.verbose > 0 {
			// -v: the chain of causes behind the one line, for a bug report.
			for cause := errors.Unwrap(err); cause != nil; cause = errors.Unwrap(cause) {
				fmt.Fprintf(os.Stderr, "  caused by (%T): %s\n", cause, oneLine(cause.Error()))
			}
		}
		stop()
		os.Exit(problem.ExitCode(asProblem(err)))
	}
}

// asProblem turns cobra's own usage errors (unknown command, wrong argument
// count) into bad-input problems; everything else is passed through.
func asProblem(err error) error {
	var p *problem.Problem
	if errors.As(err, &p) {
		return err
	}
	msg := err.Error()
	for _, prefix := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires ", "invalid argument"} {
		if strings.HasPrefix(msg, prefix) {
			return problem.BadInput("run 'pgoltp --help' for the commands and flags", "%s", msg)
		}
	}
	return err
}

// oneLine folds a multi-line error into one line: the brief promises one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}
