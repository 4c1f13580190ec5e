package main

import (
	"context"
	"fmt"
	"os"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/server"
)

// workDatabase is the database pgoltp loads and runs in on the managed cluster.
const workDatabase = "pgoltp"

// targetDSN returns the connection string of the server a command works on:
// --dsn if given (checked by connecting), else the lab's managed cluster,
// created and started if needed. The result may hold a password: never print it.
func targetDSN(ctx context.Context) (string, error) {
	if global.dsn != "" {
		return checkDSN(ctx, global.dsn)
	}
	c, err := managedCluster(ctx)
	if err != nil {
		return "", err
	}
	if err := c.EnsureDatabase(ctx, workDatabase); err != nil {
		return "", err
	}
	if global.verbose > 0 {
		fmt.Fprintf(os.Stderr, "pgoltp: managed PostgreSQL %s in %s: %s\n", c.Version, c.Lab, c.DisplayDSN(workDatabase))
	}
	return c.DSN(workDatabase), nil
}

// managedCluster returns the lab's cluster, running. It refuses when --dsn is
// given: commands that need to restart or crash a server only do that to a
// server pgoltp owns.
func managedCluster(ctx context.Context) (*cluster.Cluster, error) {
	if global.dsn != "" {
		return nil, problem.BadInput("drop --dsn to use the lab's managed cluster",
			"this command manages the lab's own cluster and cannot act on an external server")
	}
	unlock, err := lockLab()
	if err != nil {
		return nil, err
	}
	defer unlock()
	return cluster.Up(ctx, cluster.Options{Lab: global.lab, Progress: os.Stderr})
}

// checkDSN checks --dsn by connecting once (internal/server) and returns it
// with a connect timeout.
func checkDSN(ctx context.Context, dsn string) (string, error) {
	checked, where, err := server.Check(ctx, dsn)
	if err == nil && global.verbose > 0 {
		fmt.Fprintf(os.Stderr, "pgoltp: PostgreSQL at %s\n", where)
	}
	return checked, err
}
