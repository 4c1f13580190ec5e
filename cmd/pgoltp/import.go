package main

import (
	"context"

	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/pgbenchlog"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/workload/command"
)

func init() {
	imp := &cobra.Command{
		Use:   "import",
		Short: "Store runs made elsewhere as pgoltp runs",
	}
	imp.AddCommand(importPgbenchLogCommand())
	rootCmd.AddCommand(imp)
}

// importOptions are the flags of 'import pgbench-log'.
type importOptions struct {
	output, title string
	fields        pgbenchlog.Fields
	sampling      float64
}

func importPgbenchLogCommand() *cobra.Command {
	var o importOptions
	cmd := &cobra.Command{
		Use:   "pgbench-log DIR|LOGFILE",
		Short: "Store pgbench's per-transaction logs (-l) as runs: one per pgbench process",
		Long: `Read the per-transaction logs pgbench wrote with -l (PREFIX.PID and PREFIX.PID.N,
one file per thread) and store each pgbench process's logs as one run, on its
own time axis, with a per-second series and one latency histogram per script,
so that 'runs', 'report' and 'compare' work on it. Give a directory (every log
in it) or the first file of one log. Nothing is collected: the run is over.

Lines carry schedule_lag when pgbench ran with --rate, and retries when its
--max-tries was not 1: say so with --lag and --retries. --output names the file
that holds pgbench's standard output, for the scripts' names, its parameters
and its tps line.`,
		Example: `  pgbench -c 8 -j 2 -T 600 -l --log-prefix=/data/run1/pgbench_log > /data/run1/out.txt
  pgoltp import pgbench-log --output /data/run1/out.txt /data/run1`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return importPgbenchLogs(cmd.Context(), cmd, args[0], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.output, "output", "", "file holding pgbench's standard output of the run (scripts' names, parameters, tps)")
	f.StringVar(&o.title, "title", "", "the stored run's title")
	f.BoolVar(&o.fields.Lag, "lag", false, "the lines carry schedule_lag (pgbench ran with --rate)")
	f.BoolVar(&o.fields.Retries, "retries", false, "the lines carry retries (pgbench ran with --max-tries other than 1)")
	f.Float64Var(&o.sampling, "sampling-rate", 1, "the fraction of transactions pgbench logged (its --sampling-rate)")
	return cmd
}

// importPgbenchLogs stores every log at path as a run.
func importPgbenchLogs(ctx context.Context, cmd *cobra.Command, path string, o importOptions) error {
	if o.sampling <= 0 || o.sampling > 1 {
		return problem.BadInput("give the fraction pgbench logged, above 0 and at most 1", "--sampling-rate %g is not a fraction", o.sampling)
	}
	logs, err := findLogs(path)
	if err != nil {
		return err
	}
	var out *pgbenchlog.Output
	if o.output != "" {
		f, err := os.Open(o.output)
		if err != nil {
			return problem.BadInput("give the file pgbench's standard output was saved in", "--output: %v", err)
		}
		parsed := pgbenchlog.ParseOutput(f)
		f.Close()
		out = &parsed
	}
	if out != nil && len(logs) > 1 {
		return problem.BadInput("give the first file of the one log it belongs to", "--output is the output of one run, and %s holds %d logs", path, len(logs))
	}
	// Every log is read up to its first transactions (each thread's file)
	// before anything is stored: a directory with a log pgoltp cannot read
	// stores none of its runs.
	imports := make([]*command.Imported, len(logs))
	starts := make([]time.Time, len(logs))
	for i, l := range logs {
		imports[i] = &command.Imported{Log: l, Output: out, Fields: o.fields, Sampling: o.sampling, Title: o.title}
		if starts[i], err = imports[i].Start(); err != nil {
			return problem.Wrap(err, "give pgbench's per-transaction logs", "reading %s", l.Files[0])
		}
	}
	var ids []string
	for i, im := range imports {
		ro := recordOptions(true)
		ro.StartedAt = starts[i]
		res, err := recorder.Run(ctx, "", im, ro)
		if err != nil {
			return problem.Wrap(err, "check the log and the --lag/--retries flags", "importing %s", im.Log.Files[0])
		}
		ids = append(ids, res.RunID)
	}
	if global.json {
		return writeJSON(cmd.OutOrStdout(), map[string]any{"runs": ids})
	}
	return nil
}

// findLogs is the logs a directory holds, or the one log a file begins.
func findLogs(path string) ([]pgbenchlog.Log, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, problem.BadInput("give a directory of pgbench logs or a log's first file", "%v", err)
	}
	dir, prefix, pid := path, "", -1
	if !st.IsDir() {
		dir = filepath.Dir(path)
		base := filepath.Base(path)
		i := strings.LastIndexByte(base, '.')
		if i < 0 {
			return nil, problem.BadInput("give a file named PREFIX.PID, as pgbench names its first thread's log", "%s is not a pgbench log's name", path)
		}
		if pid, err = strconv.Atoi(base[i+1:]); err != nil {
			return nil, problem.BadInput("give a file named PREFIX.PID, as pgbench names its first thread's log", "%s is not a pgbench log's name", path)
		}
		prefix = base[:i]
	}
	logs, err := pgbenchlog.Find(dir, prefix)
	if err != nil {
		return nil, problem.Wrap(err, "give a directory of pgbench logs", "reading %s", dir)
	}
	var keep []pgbenchlog.Log
	for _, l := range logs {
		if pid < 0 || l.PID == pid {
			keep = append(keep, l)
		}
	}
	if len(keep) == 0 {
		return nil, problem.BadInput("run pgbench with -l (and --log-prefix to choose where)", "no pgbench log in %s", path)
	}
	return keep, nil
}
