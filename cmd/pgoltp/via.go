package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// viaFlag is --via of the run commands: the workload's data path, straight
// to PostgreSQL or through the lab's pooler (issue 31). Collectors, the
// readiness check and the consistency check always go straight to PostgreSQL.
type viaFlag struct{ Via string }

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
func (v viaFlag) target(ctx context.Context, ro *recorder.Options, sessionParams bool) (string, error) {
	dsn, err := targetDSN(ctx)
	if err != nil {
		return "", err
	}
	recordInstallation(ro)
	return dsn, v.apply(ro, sessionParams)
}

// recordInstallation adds to a run on the lab's cluster what PostgreSQL it
// runs on: its binaries, how they came, and a build's compiler, CFLAGS and
// configure options (issue 28). A run on --dsn records none: pgoltp does
// not know how that server was built.
func recordInstallation(ro *recorder.Options) {
	if global.dsn != "" {
		return
	}
	for _, f := range cluster.Installation(global.lab) {
		ro.Params = append(ro.Params, workload.Param{Name: f.Name, Value: f.Value})
	}
}

// apply points the run's data path at the lab's pooler (after targetDSN has
// started the cluster and, with it, the pooler). sessionParams says the
// workload sets session parameters at connect (TPC-C's isolation level),
// which only a pgbouncer that tracks them passes on.
func (v viaFlag) apply(ro *recorder.Options, sessionParams bool) error {
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
	if sessionParams && !c.Pooler.TracksSessionParameters() {
		return problem.BadInput("use --via direct, or a pgbouncer of 1.20 or later (track_extra_parameters)",
			"--via pooler: pgbouncer %s cannot pass the run's transaction isolation to the server in transaction pooling", c.Pooler.Version)
	}
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
