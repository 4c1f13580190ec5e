package main

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/group"
	"github.com/pgoltp/pgoltp/internal/pgbench"
	"github.com/pgoltp/pgoltp/internal/problem"
)

// pgbench is a drop-in pgbench: its command line, messages and exit codes are
// pgbench's (1 for bad options, not pgoltp's 2), so cobra only routes to it
// and leaves the arguments alone. What pgoltp adds is opt-in and named so
// that pgbench has no such option: --record (store the run, with the
// collectors around it, as 'pgoltp record' does), --title, --metrics-addr,
// --group/--part/--group-timeout (one part of a group of drivers), and the
// lab's --lab and --results-dsn.
func init() {
	rootCmd.AddCommand(&cobra.Command{
		Use:                "pgbench [pgbench options] [--record [--title T] [--group NAME --part k/n]] [dbname]",
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
				part, g, err := own.group.options(true)
				if err != nil {
					return err
				}
				if g.Name != "" {
					// the part's share of the keys, for the script to use
					args = append([]string{"-D", "part=" + strconv.Itoa(part.K), "-D", "parts=" + strconv.Itoa(part.N)}, args...)
				}
				return runRecordedIn(cmd.Context(), cmd, append([]string{self, "pgbench"}, args...), own.title, own.metricsAt, g)
			}
			if code := pgbench.Main(cmd.Context(), args, pgbench.OSEnv()); code != 0 {
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
	group            groupFlags
	groupTimeout     string
}

// pgoltpPgbenchOptions takes pgoltp's own options out of a pgbench command
// line (before a "--", which ends pgbench's options too).
func pgoltpPgbenchOptions(args []string) ([]string, pgbenchExtras, error) {
	var own pgbenchExtras
	var out []string
	valued := map[string]*string{"--title": &own.title, "--metrics-addr": &own.metricsAt, "--lab": &global.lab, "--results-dsn": &resultsStore.dsn,
		"--group": &own.group.Name, "--part": &own.group.Part, "--group-timeout": &own.groupTimeout}
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
	if (own.title != "" || own.metricsAt != "" || own.group.Name != "" || own.group.Part != "") && !own.record {
		return nil, own, problem.BadInput("add --record", "--title, --metrics-addr, --group and --part go with --record")
	}
	own.group.Timeout = group.DefaultTimeout
	if own.groupTimeout != "" {
		d, err := time.ParseDuration(own.groupTimeout)
		if err != nil {
			return nil, own, problem.BadInput("give a duration, e.g. 5m", "--group-timeout %s", own.groupTimeout)
		}
		own.group.Timeout = d
	}
	return out, own, nil
}
