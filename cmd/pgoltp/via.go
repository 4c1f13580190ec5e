package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/experiment"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/workload"
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
	recordInstallation(ro)
	return dsn, v.apply(ro)
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

// planPoolerDSN is where an experiment plan's via: pooler steps connect (""
// when it has none): the lab's pgbouncer in front of database db. A plan
// given --dsn, or a lab without a pooler, is refused naming the plan's key.
func planPoolerDSN(plan *experiment.Plan, db string) (string, error) {
	if !plan.UsesPooler() {
		return "", nil
	}
	if global.dsn != "" {
		return "", problem.BadInput("drop --dsn to run the plan on the lab's cluster and its pooler, or drop via: pooler",
			"steps.via: pooler uses the lab's managed cluster's pgbouncer, not a server given by --dsn")
	}
	c, err := cluster.Open(global.lab)
	if err != nil {
		return "", err
	}
	if c.Pooler == nil {
		return "", problem.BadInput("run 'pgoltp cluster up --pooler pgbouncer' first, or drop via: pooler",
			"steps.via: pooler: the lab's cluster has no pooler")
	}
	if plan.Workload.Kind == "tpcc" && !c.Pooler.TracksSessionParameters() {
		// tpcc then needs tpcc.RunOptions.Pooled, which a plan cannot set.
		return "", problem.BadInput("use 'pgoltp tpcc run --via pooler', or pgbouncer 1.20 or newer",
			"steps.via: pooler with workload.kind tpcc: pgbouncer %s passes no session parameter on, and an experiment's TPC-C sets them", c.Pooler.Version)
	}
	if named := preparesNamed(plan.Workload); named != "" && !c.Pooler.KeepsPreparedStatements() {
		return "", problem.BadInput("use workload.kind ledger, or kind script with protocol simple or extended, or pgbouncer 1.21 or newer",
			"steps.via: pooler with %s: pgbouncer %s does not keep named prepared statements across transactions", named, c.Pooler.Version)
	}
	return c.PoolerDSN(db), nil
}

// preparesNamed names the plan's workload when it prepares named statements
// on its connections ("" when not): TPC-B as experiments run it (pgbench -M
// prepared), and kind script with protocol: prepared.
func preparesNamed(w experiment.PlanWorkload) string {
	switch {
	case w.Kind == "tpcb":
		return "workload.kind tpcb (over prepared statements in experiments)"
	case w.Kind == experiment.ScriptKind && w.Protocol == "prepared":
		return "workload.protocol prepared"
	}
	return ""
}
