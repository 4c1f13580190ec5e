package main

import (
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/pgbench"
	"github.com/pgoltp/pgoltp/internal/problem"
)

// pgbench is a drop-in pgbench: its command line, messages and exit codes are
// pgbench's (1 for bad options, not pgoltp's 2), so cobra only routes to it
// and leaves the arguments alone. What pgoltp adds is opt-in and named so
// that pgbench has no such option: --record (store the run, with the
// collectors around it, as 'pgoltp record' does), --title, --metrics-addr,
// and the lab's --lab and --results-dsn.
func init() {
	rootCmd.AddCommand(&cobra.Command{
		Use:                "pgbench [pgbench options] [--record [--title T]] [dbname]",
		Short:              "pgbench, drop-in: the same options, output and exit codes (pgoltp pgbench --help); --record stores the run",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			args, own, err := pgoltpPgbenchOptions(args)
			if err != nil {
				return err
			}
			if own.record {
				self, err := os.Executable()
				if err != nil {
					return err
				}
				return runRecorded(cmd.Context(), cmd, append([]string{self, "pgbench"}, args...), own.title, own.metricsAt)
			}
			env := pgbench.OSEnv()
			env.NeedCPUs = func(n int) { _ = driver.UseCPUs(n, 0) } // above 0: no error
			if code := pgbench.Main(cmd.Context(), args, env); code != 0 {
				os.Exit(code)
			}
			return nil
		},
	})
}

// pgbenchExtras are the options pgoltp adds to pgbench's.
type pgbenchExtras struct {
	record           bool
	title, metricsAt string
}

// pgoltpPgbenchOptions takes pgoltp's own options out of a pgbench command
// line (before a "--", which ends pgbench's options too).
func pgoltpPgbenchOptions(args []string) ([]string, pgbenchExtras, error) {
	var own pgbenchExtras
	var out []string
	valued := map[string]*string{"--title": &own.title, "--metrics-addr": &own.metricsAt, "--lab": &global.lab, "--results-dsn": &resultsStore.dsn}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		if a == "--record" {
			own.record = true
			continue
		}
		name, value, has := strings.Cut(a, "=")
		target, ok := valued[name]
		if !ok {
			out = append(out, a)
			continue
		}
		if !has {
			if i+1 >= len(args) {
				return nil, own, problem.BadInput("give it a value", "%s needs a value", name)
			}
			i++
			value = args[i]
		}
		*target = value
	}
	if (own.title != "" || own.metricsAt != "") && !own.record {
		return nil, own, problem.BadInput("add --record", "--title and --metrics-addr go with --record")
	}
	return out, own, nil
}
