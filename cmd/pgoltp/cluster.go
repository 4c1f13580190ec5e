package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/pending"
	"github.com/pgoltp/pgoltp/internal/problem"
)

var clusterCmd = &cobra.Command{
	Use:   "cluster",
	Short: "Manage the lab's throwaway PostgreSQL cluster",
	Long: `Manage the throwaway PostgreSQL cluster in the lab directory (--lab).

The cluster uses installed PostgreSQL binaries of the requested major, or
downloads them from Maven Central (embedded-postgres-binaries; the SHA-256 of
each default build is pinned in pgoltp). As root, the server runs as an
unprivileged user (--run-as). It listens on a Unix socket in the lab and on
127.0.0.1 only, with scram-sha-256 and a generated password kept in the lab
(0600). pgoltp removes only what it created in the lab, and one command at a
time changes the cluster (the lab's lock).`,
	PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
		if global.dsn != "" {
			return problem.BadInput("drop --dsn: cluster commands manage the lab's own server",
				"'pgoltp cluster' does not act on external servers")
		}
		return nil
	},
}

func init() {
	var up cluster.Options
	upCmd := &cobra.Command{
		Use:   "up",
		Short: "Create the cluster if needed and start it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			up.Lab, up.Progress = global.lab, os.Stderr
			if err := up.ValidateReplicas(); err != nil {
				return namedFlags(err, nil)
			}
			if err := up.CheckPooler(); err != nil {
				return namedFlags(err, nil)
			}
			warnPending()
			c, err := cluster.Ready(cmd.Context(), up, commandName(), workDatabase)
			if err != nil {
				return namedFlags(err, nil) // --sync on a lab without standbys is found only there
			}
			return printStatus(cmd, c)
		},
	}
	addClusterUpFlags(upCmd.Flags(), &up)
	psqlCmd := onCluster("psql [-- psql arguments]", "Open psql on the cluster's pgoltp database", false,
		func(cmd *cobra.Command, c *cluster.Cluster, args []string) error {
			p, err := c.Psql(cmd.Context(), workDatabase, args)
			if err != nil {
				return err
			}
			return p.Run()
		})
	psqlCmd.Args = cobra.ArbitraryArgs
	psqlCmd.Flags().SetInterspersed(false)
	clusterCmd.AddCommand(upCmd, psqlCmd,
		onCluster("down", "Stop the cluster, its standbys and pooler (their data is kept)", true, func(cmd *cobra.Command, c *cluster.Cluster, _ []string) error {
			if err := c.StopAll(cmd.Context()); err != nil {
				return err
			}
			return printStatus(cmd, c)
		}),
		onCluster("status", "Show whether the cluster runs, its version and how to connect", false,
			func(cmd *cobra.Command, c *cluster.Cluster, _ []string) error { return printStatus(cmd, c) }),
		onCluster("destroy", "Stop the cluster and delete its data (results and reports in the lab are kept)", true,
			func(cmd *cobra.Command, c *cluster.Cluster, _ []string) error {
				if err := c.Destroy(cmd.Context()); err != nil {
					return err
				}
				// Its original settings went with it.
				if err := pending.Remove(c.Lab, pending.ClusterKey(c.Lab)); err != nil {
					return err
				}
				return emit(cmd.OutOrStdout(), map[string]any{"lab": c.Lab, "destroyed": true}, func(w io.Writer) error {
					_, err := fmt.Fprintf(w, "destroyed the cluster in %s\n", c.Lab)
					return err
				})
			}))
	rootCmd.AddCommand(clusterCmd)
}

// onCluster is a cluster command that works on the lab's existing cluster,
// under the lab's lock when it changes it.
func onCluster(use, short string, lock bool, run func(*cobra.Command, *cluster.Cluster, []string) error) *cobra.Command {
	return &cobra.Command{Use: use, Short: short, Args: cobra.NoArgs, RunE: func(cmd *cobra.Command, args []string) error {
		c, err := cluster.Open(global.lab)
		if err != nil {
			return err
		}
		if use != "destroy" {
			warnPending()
		}
		if lock {
			unlock, err := lockLab()
			if err != nil {
				return err
			}
			defer unlock()
		}
		return run(cmd, c, args)
	}}
}

// lockLab takes the lab's exclusive lock for the running command: every
// command that creates, starts, stops, changes the settings of or destroys
// the managed cluster holds it (cluster up/down/destroy, experiment, and the
// implicit start of the cluster by load and run commands). A command that
// only reads or drives the server does not.
func lockLab() (unlock func(), err error) {
	return cluster.LockLab(global.lab, commandName(), cluster.DefaultLockWait)
}

// holdLab takes the lab's lock for the rest of the command (an experiment
// restarts, kills and re-configures the cluster throughout): it is released
// when the process exits, as the kernel drops a flock with its last descriptor.
func holdLab() error {
	_, err := lockLab()
	return err
}

// commandName is the running command ("cluster up"), for the lock's holder line.
func commandName() string {
	c, _, err := rootCmd.Find(os.Args[1:])
	if err != nil || c == nil || c == rootCmd {
		return "pgoltp"
	}
	return strings.TrimPrefix(c.CommandPath(), rootCmd.Name()+" ")
}

func printStatus(cmd *cobra.Command, c *cluster.Cluster) error {
	st := c.Status(cmd.Context(), workDatabase)
	return emit(cmd.OutOrStdout(), st, st.WriteText)
}

// majorFlagHelp describes --pg and its default rule (see cluster.DefaultBinaries).
var majorFlagHelp = fmt.Sprintf("PostgreSQL major version (10-18; default: the machine's own PostgreSQL, else %d, whatever is in the download cache)", cluster.DefaultMajor)

// addClusterUpFlags declares the flags of 'pgoltp cluster up' that fill o.
func addClusterUpFlags(f *pflag.FlagSet, o *cluster.Options) {
	f.IntVar(&o.Major, "pg", 0, majorFlagHelp)
	f.StringVar(&o.RunAs, "run-as", "", "OS user that runs the server when pgoltp runs as root (default postgres)")
	f.BoolVar(&o.Offline, "offline", false, "never download PostgreSQL; fail if it is not installed")
	f.StringVar(&o.PgBin, "pg-bin", "", "run the cluster on this PostgreSQL installation's bin directory (initdb, pg_ctl, postgres)")
	f.StringVar(&o.Build, "build", "", "run the cluster on a build of 'pgoltp build' (its name; 'pgoltp build --list' shows them)")
	f.IntVar(&o.Standbys, "standbys", 0, fmt.Sprintf("streaming standbys of the primary, each with its own slot, data directory and port (0-%d; default: those the lab has)", cluster.MaxStandbys))
	f.StringVar(&o.Sync, "sync", "", "synchronous replication to the standbys: quorum (ANY 1), first (FIRST 1) or off (default: as the lab has it, off for a new one)")
	f.StringVar(&o.Pooler, "pooler", "", "run a connection pooler in front of the primary: pgbouncer (Debian's, transaction pooling)")
}
