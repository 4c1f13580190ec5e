package main

import (
	"context"
	"fmt"
	"os"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/restore"
	"github.com/pgoltp/pgoltp/internal/runfile"
	"github.com/pgoltp/pgoltp/internal/server"
)

// The databases pgoltp works in on the managed cluster: what 'tpcc load' and
// the run commands use, and the ones experiments and tune load on their own.
const (
	workDatabase       = "pgoltp"
	experimentDatabase = "pgoltp_experiment"
	tuneDatabase       = "pgoltp_tune"
)

// targetDSN returns the connection string of the server a command works on:
// --dsn if given (checked by connecting), else the lab's managed cluster,
// created and started if needed. The result may hold a password: never print it.
func targetDSN(ctx context.Context) (string, error) {
	if global.dsn != "" {
		return checkDSN(ctx, global.dsn)
	}
	c, err := managedDatabase(ctx, workDatabase)
	if err != nil {
		return "", err
	}
	if global.verbose > 0 {
		fmt.Fprintf(os.Stderr, "pgoltp: managed PostgreSQL %s in %s: %s\n", c.Version, c.Lab, c.DisplayDSN(workDatabase))
	}
	return c.DSN(workDatabase), nil
}

// tunedServer is the server a command changes the settings of, and the
// connection string of the database it runs in: --dsn, or the lab's managed
// cluster (database db), whose lock the command then holds to its end.
func tunedServer(ctx context.Context, db string) (restore.Server, string, error) {
	if global.dsn != "" {
		// The command's reports go to the lab: refuse an unsafe one before
		// changing anything on the server.
		if err := runfile.EnsureLab(global.lab); err != nil {
			return nil, "", err
		}
		dsn, err := checkDSN(ctx, global.dsn)
		if err != nil {
			return nil, "", err
		}
		return server.External{DSN: dsn}, dsn, nil
	}
	if err := holdLab(); err != nil {
		return nil, "", err
	}
	c, err := managedDatabase(ctx, db)
	if err != nil {
		return nil, "", err
	}
	return c, c.DSN(db), nil
}

// managedDatabase returns the lab's cluster, running, with database db. It
// refuses when --dsn is given: commands that need to restart or crash a
// server only do that to a server pgoltp owns.
func managedDatabase(ctx context.Context, db string) (*cluster.Cluster, error) {
	if global.dsn != "" {
		return nil, problem.BadInput("drop --dsn to use the lab's managed cluster",
			"this command manages the lab's own cluster and cannot act on an external server")
	}
	warnPending()
	return cluster.Ready(ctx, cluster.Options{Lab: global.lab, Progress: os.Stderr}, commandName(), db)
}

// checkDSN checks --dsn by connecting once (internal/server) and returns it
// with a connect timeout.
func checkDSN(ctx context.Context, dsn string) (string, error) {
	warnPending()
	checked, where, err := server.Check(ctx, dsn)
	if err == nil && global.verbose > 0 {
		fmt.Fprintf(os.Stderr, "pgoltp: PostgreSQL at %s\n", where)
	}
	return checked, err
}
