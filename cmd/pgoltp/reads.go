package main

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// readsFlag is --reads and --read-dsn of the run commands: where the run's
// read-only transactions go (issue 31). Writes always stay on the primary.
type readsFlag struct{ Reads, ReadDSN string }

const (
	readsPrimary = "primary"
	readsStandby = "standby"
)

// add declares --reads and --read-dsn on cmd and checks them before the
// command runs.
func (r *readsFlag) add(cmd *cobra.Command, readOnlyWork string) {
	addPreRun(cmd, func(*cobra.Command, []string) error { return r.check() })
	f := cmd.Flags()
	f.StringVar(&r.Reads, "reads", readsPrimary, "where "+readOnlyWork+" run: primary, or standby (the lab's standbys, round-robin per connection; see 'cluster up --standbys')")
	f.StringVar(&r.ReadDSN, "read-dsn", "", "run "+readOnlyWork+" on this standby of the run's primary (a server in recovery; a primary is refused)")
}

// on says read-only work leaves the primary.
func (r readsFlag) on() bool { return r.Reads == readsStandby || r.ReadDSN != "" }

// flag is the flag the user gave, for messages.
func (r readsFlag) flag() string {
	if r.ReadDSN != "" {
		return "--read-dsn"
	}
	return "--reads standby"
}

// check refuses a bad --reads, or --reads with --read-dsn, before anything
// runs.
func (r readsFlag) check() error {
	switch {
	case r.Reads != readsPrimary && r.Reads != readsStandby:
		return problem.BadInput("use --reads primary or --reads standby", "--reads %s is not a place for reads", r.Reads)
	case r.Reads == readsStandby && r.ReadDSN != "":
		return problem.BadInput("give one of them", "--reads standby and --read-dsn both say where reads go")
	case r.Reads == readsStandby && global.dsn != "":
		return problem.BadInput("give the standby with --read-dsn, or drop --dsn to use the lab's standbys",
			"--reads standby uses the lab's managed cluster's standbys, not a server given by --dsn")
	}
	return nil
}

// needsReadOnlyWork refuses reads on standbys for a run without read-only
// transactions (why names what the run does instead).
func (r readsFlag) needsReadOnlyWork(has bool, why string) error {
	if !r.on() || has {
		return nil
	}
	return problem.BadInput("drop "+r.flag()+", or "+why, "%s: the run has no read-only work to send to a standby", r.flag())
}

// resolve is where the reads of a run on the primary at primaryDSN (straight
// to PostgreSQL, never the pooler) go.
func (r readsFlag) resolve(ctx context.Context, primaryDSN string) (workload.Reads, error) {
	reads := workload.Reads{PrimaryDSN: primaryDSN}
	switch {
	case r.Reads == readsStandby:
		c, err := cluster.Open(global.lab)
		if err != nil {
			return reads, err
		}
		if len(c.Standbys) == 0 {
			return reads, problem.BadInput("run 'pgoltp cluster up --standbys 1' first, or drop --reads standby",
				"--reads standby: the lab's cluster has no standbys")
		}
		for _, n := range c.Nodes() {
			reads.Nodes = append(reads.Nodes, workload.ReadNode{Name: n.Name(), DSN: n.DSN(workDatabase)})
		}
	case r.ReadDSN != "":
		dsn, err := checkDSN(ctx, r.ReadDSN)
		if err != nil {
			return reads, err
		}
		if err := checkStandbyOf(ctx, dsn, primaryDSN); err != nil {
			return reads, err
		}
		reads.Nodes = []workload.ReadNode{{Name: "read-dsn", DSN: dsn}}
	}
	return reads, nil
}

// collectStandbys has the run's collectors read each standby straight
// (collect.Standby): the lab's standbys on its managed cluster, whether or
// not reads go there; with --dsn, the one --read-dsn names (pgoltp knows no
// other standby of a server it does not manage).
func collectStandbys(ro *recorder.Options, reads workload.Reads) error {
	ro.Collect.Standbys = nil
	if global.dsn != "" {
		for _, n := range reads.Nodes {
			ro.Collect.Standbys = append(ro.Collect.Standbys, collect.Standby{Name: n.Name, DSN: n.DSN})
		}
		return nil
	}
	c, err := cluster.Open(global.lab)
	if err != nil {
		return err
	}
	for _, n := range c.Nodes() {
		ro.Collect.Standbys = append(ro.Collect.Standbys, collect.Standby{Name: n.Name(), DSN: n.DSN(workDatabase)})
	}
	return nil
}

// checkStandbyOf refuses a --read-dsn that is not in recovery, or is a
// standby of another cluster than the primary's: its reads would be labelled
// as a standby's, with a lag that means nothing.
func checkStandbyOf(ctx context.Context, dsn, primaryDSN string) error {
	standby, err := adminconn.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("--read-dsn: %w", err)
	}
	defer standby.Close(context.WithoutCancel(ctx))
	var inRecovery bool
	if err := standby.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&inRecovery); err != nil {
		return fmt.Errorf("--read-dsn: %w", err)
	}
	if !inRecovery {
		return problem.BadInput("give a standby's connection string, or drop --read-dsn",
			"--read-dsn is a primary (pg_is_in_recovery() is false): reads there are not reads on a standby, and its lag means nothing")
	}
	primary, err := adminconn.Connect(ctx, primaryDSN)
	if err != nil {
		return err
	}
	defer primary.Close(context.WithoutCancel(ctx))
	s, serr := systemIdentifier(ctx, standby)
	p, perr := systemIdentifier(ctx, primary)
	if serr == nil && perr == nil && s != p {
		return problem.BadInput("give a standby of the run's primary, or drop --read-dsn",
			"--read-dsn is a standby of another cluster (system identifier %d, the primary's %d)", s, p)
	}
	return nil
}

// systemIdentifier is the cluster's pg_control system identifier, the same
// on a primary and its physical standbys.
func systemIdentifier(ctx context.Context, conn *pgx.Conn) (int64, error) {
	var id int64
	err := conn.QueryRow(ctx, "SELECT system_identifier FROM pg_control_system()").Scan(&id)
	return id, err
}
