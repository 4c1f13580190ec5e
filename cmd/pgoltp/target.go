package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/problem"
)

// setupTimeout bounds the setup statements pgoltp runs before a command's
// real work (checking a database exists, creating it).
const setupTimeout = 2 * time.Minute

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
	if err := ensureDatabase(ctx, c, workDatabase); err != nil {
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

// checkDSN parses dsn and connects once, so that a typo or an unreachable
// server fails here, in one line, before any work starts.
func checkDSN(ctx context.Context, dsn string) (string, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		// The parse error may quote the DSN; name the problem without it.
		return "", problem.BadInput("use a URL such as postgres://user@host:5432/db or key=value pairs such as 'host=/tmp dbname=db'",
			"--dsn is not a valid connection string")
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		where := fmt.Sprintf("%s:%d database %s as %s", cfg.Host, cfg.Port, cfg.Database, cfg.User)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			return "", problem.BadInput("check the user, password and database in --dsn",
				"the server at %s refused the connection: %s", where, pgErr.Message)
		}
		p := problem.BadInput("start the server or fix the host and port in --dsn", "cannot reach PostgreSQL at %s", where)
		p.Err = err // shown with -v; pgx's messages never carry the password
		return "", p
	}
	conn.Close(ctx)
	if global.verbose > 0 {
		fmt.Fprintf(os.Stderr, "pgoltp: PostgreSQL at %s:%d database %s as %s\n", cfg.Host, cfg.Port, cfg.Database, cfg.User)
	}
	return withConnectTimeout(dsn, cfg), nil
}

// defaultConnectTimeout bounds every connection pgoltp opens to a --dsn server
// whose DSN (or PGCONNECT_TIMEOUT) does not set one: a server that stops
// answering (a firewall dropping packets, a dead host) then fails the command
// instead of hanging it for the kernel's TCP timeout, minutes later.
const defaultConnectTimeout = "10"

// withConnectTimeout returns dsn with connect_timeout=10 added when cfg (dsn
// parsed) has none, in the DSN's own form: a query parameter of a URL, or a
// key=value pair.
func withConnectTimeout(dsn string, cfg *pgx.ConnConfig) string {
	if cfg.ConnectTimeout > 0 {
		return dsn
	}
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return dsn
		}
		q := u.Query()
		q.Set("connect_timeout", defaultConnectTimeout)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return strings.TrimSpace(dsn) + " connect_timeout=" + defaultConnectTimeout
}

// ensureDatabase creates db on the managed cluster if it does not exist.
func ensureDatabase(ctx context.Context, c *cluster.Cluster, db string) error {
	// A setup statement: bounded, so a stuck server fails the command.
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return fmt.Errorf("connecting to the managed cluster: %w", err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", db).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize())
	return err
}
