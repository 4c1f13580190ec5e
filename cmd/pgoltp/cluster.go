package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/cluster"
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
	var up struct {
		major   int
		runAs   string
		offline bool
	}
	upCmd := &cobra.Command{
		Use:   "up",
		Short: "Create the cluster if needed and start it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			unlock, err := lockLab()
			if err != nil {
				return err
			}
			defer unlock()
			c, err := cluster.Up(cmd.Context(), cluster.Options{Lab: global.lab, Major: up.major, RunAs: up.runAs, Offline: up.offline, Progress: os.Stderr})
			if err != nil {
				return err
			}
			if err := ensureDatabase(cmd.Context(), c, workDatabase); err != nil {
				return err
			}
			return printStatus(cmd, c)
		},
	}
	upCmd.Flags().IntVar(&up.major, "pg", 0, "PostgreSQL major version (10-18; default: the newest installed, else download 18)")
	upCmd.Flags().StringVar(&up.runAs, "run-as", "", "OS user that runs the server when pgoltp runs as root (default postgres)")
	upCmd.Flags().BoolVar(&up.offline, "offline", false, "never download PostgreSQL; fail if it is not installed")

	downCmd := &cobra.Command{
		Use:   "down",
		Short: "Stop the cluster (its data is kept)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := cluster.Open(global.lab)
			if err != nil {
				return err
			}
			unlock, err := lockLab()
			if err != nil {
				return err
			}
			defer unlock()
			if err := c.Stop(cmd.Context()); err != nil {
				return err
			}
			return printStatus(cmd, c)
		},
	}
	statusCmd := &cobra.Command{
		Use:   "status",
		Short: "Show whether the cluster runs, its version and how to connect",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := cluster.Open(global.lab)
			if err != nil {
				return err
			}
			return printStatus(cmd, c)
		},
	}
	destroyCmd := &cobra.Command{
		Use:   "destroy",
		Short: "Stop the cluster and delete its data (results and reports in the lab are kept)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := cluster.Open(global.lab)
			if err != nil {
				return err
			}
			unlock, err := lockLab()
			if err != nil {
				return err
			}
			defer unlock()
			if err := c.Destroy(cmd.Context()); err != nil {
				return err
			}
			if global.json {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(map[string]any{"lab": c.Lab, "destroyed": true})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "destroyed the cluster in %s\n", c.Lab)
			return nil
		},
	}
	psqlCmd := &cobra.Command{
		Use:   "psql [-- psql arguments]",
		Short: "Open psql on the cluster's pgoltp database",
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := cluster.Open(global.lab)
			if err != nil {
				return err
			}
			psql, err := exec.LookPath("psql")
			if err != nil {
				psql = filepath.Join(c.BinDir, "psql")
				if _, serr := os.Stat(psql); serr != nil {
					return problem.BadInput("install the PostgreSQL client (apt-get install postgresql-client)", "psql is not installed")
				}
			}
			p := exec.CommandContext(cmd.Context(), psql, append([]string{c.DisplayDSN(workDatabase)}, args...)...)
			p.Env = append(os.Environ(), "PGPASSFILE="+c.PassFile())
			p.Stdin, p.Stdout, p.Stderr = os.Stdin, os.Stdout, os.Stderr
			return p.Run()
		},
	}
	psqlCmd.Flags().SetInterspersed(false)
	clusterCmd.AddCommand(upCmd, downCmd, statusCmd, destroyCmd, psqlCmd)
	rootCmd.AddCommand(clusterCmd)
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

// clusterStatus is what 'pgoltp cluster status' shows; never the password.
type clusterStatus struct {
	Lab        string `json:"lab"`
	Running    bool   `json:"running"`
	Version    string `json:"version"`
	Major      int    `json:"major"`
	BinDir     string `json:"bin_dir"`
	DataDir    string `json:"data_dir"`
	Port       int    `json:"port"`
	SocketDir  string `json:"socket_dir"`
	RunAs      string `json:"run_as"`
	DSN        string `json:"dsn"`
	PassFile   string `json:"passfile"`
	DataSize   string `json:"data_size,omitempty"`
	LogFile    string `json:"log_file"`
	Superuser  string `json:"superuser"`
	ListenAddr string `json:"listen_addresses"`
}

func printStatus(cmd *cobra.Command, c *cluster.Cluster) error {
	ctx := cmd.Context()
	st := clusterStatus{
		Lab: c.Lab, Running: c.Running(ctx), Version: c.Version, Major: c.Major, BinDir: c.BinDir,
		DataDir: c.DataDir, Port: c.Port, SocketDir: c.SocketDir, RunAs: c.RunAs,
		DSN: c.DisplayDSN(workDatabase), PassFile: c.PassFile(), LogFile: c.LogFile,
		Superuser: cluster.Superuser, ListenAddr: "127.0.0.1",
	}
	if st.Running {
		st.DataSize = databaseSize(ctx, c)
	}
	if global.json {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	w := cmd.OutOrStdout()
	state := "stopped"
	if st.Running {
		state = "running"
	}
	fmt.Fprintf(w, "PostgreSQL %s  %s  (server user %s)\n", st.Version, state, st.RunAs)
	fmt.Fprintf(w, "  lab       %s\n", st.Lab)
	fmt.Fprintf(w, "  data      %s", st.DataDir)
	if st.DataSize != "" {
		fmt.Fprintf(w, "  (%s)", st.DataSize)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  listens   %s/.s.PGSQL.%d and 127.0.0.1:%d\n", st.SocketDir, st.Port, st.Port)
	fmt.Fprintf(w, "  binaries  %s\n", st.BinDir)
	fmt.Fprintf(w, "  log       %s\n", st.LogFile)
	fmt.Fprintf(w, "  connect   PGPASSFILE=%s psql \"%s\"\n", st.PassFile, st.DSN)
	return nil
}

func databaseSize(ctx context.Context, c *cluster.Cluster) string {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return ""
	}
	defer conn.Close(ctx)
	var s string
	_ = conn.QueryRow(ctx, "SELECT pg_size_pretty(sum(pg_database_size(datname))::bigint) FROM pg_database").Scan(&s)
	return s
}
