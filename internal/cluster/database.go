package cluster

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/adminconn"
)

// setupTimeout bounds the setup statements run before a command's real work:
// a stuck server fails the command instead of hanging it.
const setupTimeout = 2 * time.Minute

// EnsureDatabase creates db on the cluster if it does not exist.
func (c *Cluster) EnsureDatabase(ctx context.Context, db string) error {
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	conn, err := adminconn.Connect(ctx, c.DSN("postgres"))
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

// DataSize is the size of all the cluster's databases, for people ("1234 MB");
// "" when it cannot be read.
func (c *Cluster) DataSize(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := adminconn.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return ""
	}
	defer conn.Close(ctx)
	var s string
	_ = conn.QueryRow(ctx, "SELECT pg_size_pretty(sum(pg_database_size(datname))::bigint) FROM pg_database").Scan(&s)
	return s
}

// Ready is the start of every command on the managed cluster: under the
// lab's lock (held for command), create the cluster if needed, start it, and
// make sure database db exists.
func Ready(ctx context.Context, opts Options, command, db string) (*Cluster, error) {
	unlock, err := LockLab(opts.Lab, command, DefaultLockWait)
	if err != nil {
		return nil, err
	}
	defer unlock()
	c, err := Up(ctx, opts)
	if err != nil {
		return nil, err
	}
	return c, c.EnsureDatabase(ctx, db)
}
