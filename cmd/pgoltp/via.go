package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/recorder"
)

// viaFlag is --via of the run commands: the workload's data path, straight
// to PostgreSQL or through the lab's pooler (issue 31). Collectors, the
// readiness check and the consistency check always go straight to PostgreSQL.
type viaFlag struct {
	Via string
	// Unpooled is set by target when the pooler is a pgbouncer that passes
	// no session startup parameter on (before 1.20): the workload must then
	// send none (tpcc.RunOptions.Pooled).
	Unpooled bool
}

const (
	viaDirect = "direct"
	viaPooler = "pooler"
)

// add declares --via on cmd and checks it before the command runs.
func (v *viaFlag) add(cmd *cobra.Command) {
	addPreRun(cmd, func(*cobra.Command, []string) error { return v.check() })
	cmd.Flags().StringVar(&v.Via, "via", viaDirect, "the workload's connections: direct, or pooler (the lab's pgbouncer, see 'cluster up --pooler'); collectors and the check go straight to PostgreSQL")
}

// check refuses a bad --via before anything runs.
func (v viaFlag) check() error {
	switch {
	case v.Via != viaDirect && v.Via != viaPooler:
		return problem.BadInput("use --via direct or --via pooler", "--via %s is not a data path", v.Via)
	case v.Via == viaPooler && global.dsn != "":
		return problem.BadInput("drop --dsn to run through the lab's pooler, or --via pooler to run on "+"--dsn directly",
			"--via pooler uses the lab's managed cluster's pgbouncer, not a server given by --dsn")
	}
	return nil
}

// target is targetDSN, the server the command works on, with the run's
// data path set by --via (see apply).
func (v *viaFlag) target(ctx context.Context, ro *recorder.Options) (string, error) {
	dsn, err := targetDSN(ctx)
	if err != nil {
		return "", err
	}
	return dsn, v.apply(ro)
}

// apply points the run's data path at the lab's pooler (after targetDSN has
// started the cluster and, with it, the pooler).
func (v *viaFlag) apply(ro *recorder.Options) error {
	if v.Via != viaPooler {
		return nil
	}
	c, err := cluster.Open(global.lab)
	if err != nil {
		return err
	}
	if c.Pooler == nil {
		return problem.BadInput("run 'pgoltp cluster up --pooler pgbouncer' first, or drop --via pooler",
			"--via pooler: the lab's cluster has no pooler")
	}
	v.Unpooled = !c.Pooler.TracksSessionParameters()
	ro.DataDSN = c.PoolerDSN(workDatabase)
	ro.Collect.PoolerDSN = c.PoolerAdminDSN()
	return nil
}

// addPreRun adds check to what cmd does before it runs, after what others
// added (--schemas and --via each check their flags there).
func addPreRun(cmd *cobra.Command, check func(*cobra.Command, []string) error) {
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if prev != nil {
			if err := prev(c, args); err != nil {
				return err
			}
		}
		return check(c, args)
	}
}
