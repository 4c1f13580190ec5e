package main

import (
	"context"
	"io"
	"os"
	"slices"

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
	audit := &crashaudit.FailoverAudit{Cluster: c, Kill: f.failoverKill, Database: experimentDatabase, Synchronous: f.failoverSync != "off", SyncCommit: f.failoverSync,
		Workload: ledger.Ledger{Clients: f.Clients, Accounts: 10000}, KillAfter: f.KillAfter, Log: os.Stderr}
	rep, err := audit.Run(ctx)
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
