// Package server is what pgoltp does to a PostgreSQL server it does not own
// (--dsn): check the connection string and that the server answers, bound its
// connections with a connect timeout, and apply settings by reload only. The
// lab's own server is internal/cluster's.
//
// It must not print or return a password: errors name host, port, database
// and user only.
package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/connstr"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// Check parses dsn and connects once, so that a typo or an unreachable server
// fails here, in one line, before any work starts. It returns dsn with a
// connect timeout added when it has none, and where it connected (no password).
func Check(ctx context.Context, dsn string) (checked, where string, err error) {
	cfg, err := adminconn.Config(dsn)
	if err != nil {
		// The parse error may quote the DSN; name the problem without it.
		return "", "", problem.BadInput("use a URL such as postgres://user@host:5432/db or key=value pairs such as 'host=/tmp dbname=db'",
			"--dsn is not a valid connection string")
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	where = fmt.Sprintf("%s:%d database %s as %s", cfg.Host, cfg.Port, cfg.Database, cfg.User)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			return "", "", problem.BadInput("check the user, password and database in --dsn",
				"the server at %s refused the connection: %s", where, pgErr.Message)
		}
		p := problem.BadInput("start the server or fix the host and port in --dsn", "cannot reach PostgreSQL at %s", where)
		p.Err = err // shown with -v; pgx's messages never carry the password
		return "", "", p
	}
	conn.Close(ctx)
	return withConnectTimeout(dsn, cfg), where, nil
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
	out, err := connstr.With(dsn, "connect_timeout", defaultConnectTimeout)
	if err != nil {
		return dsn // a DSN pgx reads but that cannot take one: as given
	}
	return out
}

// External applies settings to a server pgoltp does not own: reloads only,
// since it may not restart it. It satisfies restore.Server.
type External struct{ DSN string }

// Apply sets values with ALTER SYSTEM and reloads; a setting that needs a
// restart is refused.
func (s External) Apply(ctx context.Context, values map[string]string) (bool, error) {
	if err := settings.CheckApplicable(values); err != nil {
		return false, problem.BadInput("leave it out of the plan", "%v", err)
	}
	conn, err := adminconn.Connect(ctx, s.DSN)
	if err != nil {
		return false, err
	}
	defer conn.Close(context.Background())
	restart, err := cluster.ApplySettings(ctx, conn, values)
	if err != nil {
		return false, err
	}
	if restart {
		return false, problem.BadInput("drop --dsn to run the plan on the lab's managed cluster, or leave restart-only settings out",
			"the plan needs a restart, and pgoltp does not restart a server it does not own")
	}
	return false, nil
}
