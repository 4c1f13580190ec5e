package cluster

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/problem"
)

var settingNameRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$`)

// Apply sets server settings persistently with ALTER SYSTEM (postgresql.auto.conf),
// reloads the configuration, and restarts the server only when one of them
// needs it (pg_settings.pending_restart). PostgreSQL itself validates every
// name and value; a rejected one is returned as a bad-input problem and nothing
// after it is applied.
func (c *Cluster) Apply(ctx context.Context, settings map[string]string) (restarted bool, err error) {
	if len(settings) == 0 {
		return false, nil
	}
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return false, err
	}
	defer conn.Close(ctx)
	restart, err := ApplySettings(ctx, conn, settings)
	if err != nil || !restart {
		return false, err
	}
	return true, c.Restart(ctx)
}

// ApplySettings runs ALTER SYSTEM for each setting on conn (a superuser
// connection to any server, managed or not), reloads, and reports whether a
// restart is needed for them to take effect.
func ApplySettings(ctx context.Context, conn *pgx.Conn, settings map[string]string) (needRestart bool, err error) {
	names := make([]string, 0, len(settings))
	for name := range settings {
		if !settingNameRE.MatchString(name) {
			return false, problem.BadInput("use a PostgreSQL parameter name such as shared_buffers", "%q is not a setting name", name)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		// format(%I, %L) quotes the name and the value on the server: no
		// client-side quoting of user input.
		var stmt string
		if err := conn.QueryRow(ctx, "SELECT format('ALTER SYSTEM SET %I = %L', $1::text, $2::text)", name, settings[name]).Scan(&stmt); err != nil {
			return false, err
		}
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return false, problem.Wrap(err, "fix the value (see 'pgoltp advise' for valid settings)", "PostgreSQL rejected %s = %q", name, settings[name])
		}
	}
	if _, err := conn.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		return false, err
	}
	// The reload is a signal handled asynchronously; pending_restart is
	// reliable once our own backend has processed it too.
	time.Sleep(150 * time.Millisecond)
	rows, err := conn.Query(ctx, "SELECT name FROM pg_settings WHERE pending_restart AND name = ANY($1)", names)
	if err != nil {
		return false, err
	}
	pending, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return false, fmt.Errorf("reading pending_restart: %w", err)
	}
	return len(pending) > 0, nil
}

// Reset removes settings applied with Apply (ALTER SYSTEM RESET ALL), restarting
// if that is needed for the defaults to come back.
func (c *Cluster) Reset(ctx context.Context) (restarted bool, err error) {
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return false, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "ALTER SYSTEM RESET ALL"); err != nil {
		return false, err
	}
	if _, err := conn.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		return false, err
	}
	time.Sleep(150 * time.Millisecond)
	var pending bool
	if err := conn.QueryRow(ctx, "SELECT count(*) > 0 FROM pg_settings WHERE pending_restart").Scan(&pending); err != nil {
		return false, err
	}
	if !pending {
		return false, nil
	}
	return true, c.Restart(ctx)
}
