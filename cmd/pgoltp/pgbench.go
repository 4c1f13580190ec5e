package main

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/group"
	"github.com/pgoltp/pgoltp/internal/pgbench"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/workload/command"
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
			env, err := pgbenchEnv(own.labGiven)
			if err != nil {
				return err
			}
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
	record, labGiven bool
	title, metricsAt string
	group            groupFlags
	groupTimeout     string
}

// pgoltpPgbenchOptions takes pgoltp's own options out of a pgbench command
// line (before a "--", which ends pgbench's options too).
func pgoltpPgbenchOptions(args []string) ([]string, pgbenchExtras, error) {
	var own pgbenchExtras
	var out []string
	valued := map[string]*string{"--title": &own.title, "--metrics-addr": &own.metricsAt, "--lab": &global.lab, "--dsn": &global.dsn, "--results-dsn": &resultsStore.dsn,
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
		own.labGiven = own.labGiven || name == "--lab"
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

// pgbenchEnv is the environment pgbench reads its connection from. PG*
// variables that name a server are pgbench's business, as they would be
// without pgoltp. Otherwise --dsn, or the lab's cluster (--lab, or a lab in
// the default place), is pgbench's default server, set as PG* variables so
// that -h, -p, -U and a dbname on the command line override parts of it as
// in libpq: a managed lab needs no connection options. Nothing is started or
// connected here (a bad option must fail as in pgbench, before any server is
// touched); with none of them it is libpq's default, as in pgbench. The
// variables are set in this process because pgbench's connections read them
// as libpq does (pgx.ParseConfig).
func pgbenchEnv(labGiven bool) (pgbench.Env, error) {
	if command.EnvNamesServer() || global.dsn == "" && !(labGiven || cluster.Exists(global.lab)) {
		return pgbench.OSEnv(), nil
	}
	dsn, passFile := global.dsn, ""
	if dsn == "" {
		c, err := cluster.Open(global.lab)
		if err != nil {
			return pgbench.Env{}, err
		}
		dsn, passFile = c.DSN(workDatabase), c.PassFile()
	}
	vars, err := libpqEnv(dsn, passFile)
	if err != nil {
		return pgbench.Env{}, problem.BadInput("give --dsn as a URL or key=value string", "--dsn: %v", err)
	}
	for _, kv := range vars {
		k, v, _ := strings.Cut(kv, "=")
		if err := os.Setenv(k, v); err != nil {
			return pgbench.Env{}, err
		}
	}
	return pgbench.OSEnv(), nil
}
