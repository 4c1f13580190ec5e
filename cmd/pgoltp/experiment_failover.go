package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/crashaudit"
	"github.com/pgoltp/pgoltp/internal/experiment"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/workload/ledger"
)

// runFailover is 'experiment --failover' (issue 31): the failover audit on
// the lab's primary and its standbys, which it puts back afterwards.
func runFailover(ctx context.Context, out io.Writer, f experimentFlags) error {
	switch {
	case f.crash:
		return problem.BadInput("give one of --crash and --failover", "--crash and --failover are two audits")
	case !slices.Contains([]string{"on", "remote_write", "remote_apply", "off"}, f.failoverSync):
		return problem.BadInput("use --sync on, remote_write, remote_apply or off", "--sync %s is not a replication level of the failover audit", f.failoverSync)
	case f.failoverKill != crashaudit.KillPrimary && f.failoverKill != crashaudit.KillNetwork:
		return problem.BadInput("use --kill primary or --kill network", "--kill %s is not a way to take the primary away", f.failoverKill)
	case len(f.Set) > 0:
		return problem.BadInput("drop --set (the audit sets synchronous replication itself, from --sync)", "--set is only for --crash")
	}
	f.Set = nil // Validate checks --kill-after and --clients
	if err := f.Validate(); err != nil {
		return namedFlags(err, crashFlags)
	}
	if err := holdLab(); err != nil {
		return err
	}
	c, err := managedDatabase(ctx, experimentDatabase)
	if err != nil {
		return err
	}
	rep, err := failoverAudit(c, f.failoverSync, f.failoverKill, f.Clients, f.KillAfter).Run(ctx)
	if rep != nil {
		experiment.KeepReport(global.lab, "failover", rep, os.Stderr)
	}
	if err != nil {
		return err
	}
	if err := emit(out, rep, rep.WriteText); err != nil {
		return err
	}
	return rep.Failure()
}

// failoverAudit is the audit of one replication level (sync) and kill.
func failoverAudit(c *cluster.Cluster, sync, kill string, clients int, killAfter time.Duration) *crashaudit.FailoverAudit {
	return &crashaudit.FailoverAudit{Cluster: c, Kill: kill, Database: experimentDatabase, Synchronous: sync != "off", SyncCommit: sync,
		Workload: ledger.Ledger{Clients: clients, Accounts: 10000}, KillAfter: killAfter, Log: os.Stderr}
}

// runFailoverPlan runs a plan's failover: block: the audit for every level
// and kill, each on a fresh cluster (a primary and one standby, in
// LAB/failover, on the lab's binaries) destroyed after it, and prints one
// table.
func runFailoverPlan(ctx context.Context, out io.Writer, plan *experiment.Plan) error {
	if global.dsn != "" {
		return problem.BadInput("drop --dsn: each failover audit runs on a fresh managed cluster of its own", "a failover plan cannot use an external server")
	}
	if err := holdLab(); err != nil {
		return err
	}
	warnPending()
	base := cluster.Options{Lab: filepath.Join(global.lab, "failover"), Standbys: 1, Progress: os.Stderr}
	if c, err := cluster.Open(global.lab); err == nil {
		base.PgBin, base.RunAs = c.BinDir, c.RunAs // the lab's binaries, not a download
	}
	table := &crashaudit.FailoverTable{}
	for _, sync := range plan.Failover.Sync {
		for _, kill := range plan.Failover.Kill {
			rep, err := freshFailover(ctx, base, failoverAudit(nil, sync, kill, plan.Workload.Clients, plan.Duration))
			if rep != nil {
				table.Audits = append(table.Audits, rep)
			}
			if err != nil {
				experiment.KeepReport(global.lab, "failover", table, os.Stderr) // the audits so far
				return fmt.Errorf("failover audit at sync %s, kill %s: %w", sync, kill, err)
			}
		}
	}
	experiment.KeepReport(global.lab, "failover", table, os.Stderr)
	if err := emit(out, table, table.WriteText); err != nil {
		return err
	}
	return table.Failure()
}

// freshFailover runs audit on a new cluster made from opts, destroyed
// afterwards (first, too, if an interrupted plan left one).
func freshFailover(ctx context.Context, opts cluster.Options, audit *crashaudit.FailoverAudit) (*crashaudit.FailoverReport, error) {
	if cluster.Exists(opts.Lab) {
		if old, err := cluster.Open(opts.Lab); err == nil {
			if err := old.Destroy(ctx); err != nil {
				return nil, err
			}
		}
	}
	c, err := cluster.Up(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer c.Destroy(context.WithoutCancel(ctx))
	if err := c.EnsureDatabase(ctx, experimentDatabase); err != nil {
		return nil, err
	}
	audit.Cluster = c
	return audit.Run(ctx)
}
