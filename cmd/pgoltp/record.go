package main

import (
	"context"
	"errors"
	"fmt"

	"os"
	"os/exec"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/group"
	"github.com/pgoltp/pgoltp/internal/livemetrics"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/workload/command"
)

func init() { rootCmd.AddCommand(recordCommand()) }

func recordCommand() *cobra.Command {
	var title, metricsAt string
	cmd := &cobra.Command{
		Use:   "record [--title T] -- COMMAND [ARG...]",
		Short: "Run any benchmark command unchanged and store it as a run, with the collectors around it",
		Long: `Run COMMAND as it is (its output, input and exit code are its own) while
pgoltp samples the OS and PostgreSQL, and store it as a run: 'pgoltp runs',
'report' and 'compare' then work on it like on pgoltp's own runs.

For pgbench, pgoltp also adds -l (per-transaction logs in a directory of its
own, removed afterwards) unless the command line has -l, and turns the logs
into a per-second series and one latency histogram per script. The server
sampled is the one pgbench's -h/-p/-U/dbname name, else --dsn, else the lab's
managed cluster (then pgbench is pointed at it through PGHOST, PGPORT, PGUSER,
PGDATABASE and PGPASSFILE, so 'pgoltp record -- pgbench -c 8 -T 60' runs on
the lab). A program that is not pgbench is stored with its command line, the
end of its output and the collectors' samples. With --json, the command's
standard output goes to standard error and pgoltp prints the run's id.`,
		Example: `  pgoltp record -- pgbench -i -s 10
  pgoltp record --title "select-only, 8 clients" -- pgbench -S -M prepared -c 8 -j 2 -T 60
  pgoltp report last`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 0 || len(args) == 0 {
				return problem.BadInput("put the command after --: pgoltp record -- pgbench ...", "no command to record")
			}
			return runRecorded(cmd.Context(), cmd, args, title, metricsAt)
		},
	}
	addMetricsFlag(cmd.Flags(), &metricsAt)
	cmd.Flags().StringVar(&title, "title", "", "the stored run's title (default: the command line, any password left out)")
	return cmd
}

// runRecorded runs argv as a recorded command and exits as it did.
func runRecorded(ctx context.Context, cmd *cobra.Command, argv []string, title, metricsAt string) error {
	return runRecordedIn(ctx, cmd, argv, title, metricsAt, group.Options{})
}

// runRecordedIn is runRecorded as a part of the group g (none when g has no
// Name): the command starts at the group's agreed start.
func runRecordedIn(ctx context.Context, cmd *cobra.Command, argv []string, title, metricsAt string, g group.Options) error {
	if _, err := exec.LookPath(argv[0]); err != nil {
		return problem.BadInput("install it or give its path", "cannot run %s: %v", argv[0], errors.Unwrap(err))
	}
	logDir, err := os.MkdirTemp("", "pgoltp-record-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(logDir)
	c := &command.Command{Argv: argv, Title: title, Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), LogDir: logDir}
	if global.json { // standard output is pgoltp's JSON: the command's goes to standard error
		c.Stdout = cmd.ErrOrStderr()
	}
	dsn, err := recordedServer(ctx, c)
	if err != nil {
		return err
	}
	ro := recordOptions(true)
	ro.Log = cmd.ErrOrStderr()
	ro.Group = g
	stopLive, err := startLive(metricsAt, &ro, livemetrics.Info{Workload: c.Kind()}, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer stopLive()
	out, runErr := recorder.Run(ctx, dsn, c, ro)
	var exit *command.ExitError
	if errors.As(runErr, &exit) {
		return &problem.Problem{What: fmt.Sprintf("%s exited with code %d; the run is stored as failed", argv[0], exit.Code), Code: exit.Code}
	}
	if runErr != nil {
		return runErr
	}
	if global.json && out != nil {
		return writeJSON(cmd.OutOrStdout(), map[string]any{"run_id": out.RunID, "command": c.Name()})
	}
	return nil
}

// recordedServer is the server the collectors sample, and points the
// command at it when its own command line names none.
func recordedServer(ctx context.Context, c *command.Command) (string, error) {
	if c.ConnectsItself() {
		return c.DSN(), nil
	}
	if global.dsn != "" {
		dsn, err := checkDSN(ctx, global.dsn)
		if err != nil {
			return "", err
		}
		env, err := libpqEnv(dsn, "")
		c.Env = env
		return dsn, err
	}
	cl, err := managedDatabase(ctx, workDatabase)
	if err != nil {
		return "", err
	}
	dsn := cl.DSN(workDatabase)
	env, err := libpqEnv(dsn, cl.PassFile())
	c.Env = env
	return dsn, err
}

// libpqEnv is the PG* environment that points a libpq program at dsn.
func libpqEnv(dsn, passFile string) ([]string, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	env := []string{"PGHOST=" + cfg.Host, "PGPORT=" + strconv.Itoa(int(cfg.Port)), "PGUSER=" + cfg.User, "PGDATABASE=" + cfg.Database}
	if passFile != "" {
		env = append(env, "PGPASSFILE="+passFile)
	} else if cfg.Password != "" {
		env = append(env, "PGPASSWORD="+cfg.Password)
	}
	return env, nil
}
