package pgbench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// connString is what pgbench hands libpq: -h -p -U and the database name,
// which may itself be a connection string (libpq's expand_dbname) and then
// wins over -h -p -U as it does in libpq. PG* variables and defaults come
// from pgx as from libpq.
func (o *Options) connString() string {
	if strings.HasPrefix(o.DBName, "postgres://") || strings.HasPrefix(o.DBName, "postgresql://") {
		return o.DBName
	}
	var b strings.Builder
	pair := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s='%s' ", k, strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v))
		}
	}
	pair("host", o.Host)
	pair("port", o.Port)
	pair("user", o.User)
	if strings.Contains(o.DBName, "=") {
		b.WriteString(o.DBName)
	} else {
		pair("dbname", o.DBName)
	}
	return b.String()
}

// connect opens a connection as pgbench's doConnect, with the server's
// notices printed as libpq's default notice processor prints them.
func (o *Options) connect(ctx context.Context, log logger) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(o.connString())
	if err == nil {
		if _, ok := cfg.RuntimeParams["application_name"]; !ok {
			cfg.RuntimeParams["application_name"] = progName
		}
		cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { printNotice(log, n) }
		var conn *pgx.Conn
		if conn, err = pgx.ConnectConfig(ctx, cfg); err == nil {
			return conn, nil
		}
	}
	log.error("%s", connectErrorText(err))
	return nil, err
}

// connectErrorText words a failed connection as libpq does:
// connection to server on socket "/run/.s.PGSQL.5432" failed: FATAL:  ...
func connectErrorText(err error) string {
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) || ce.Unwrap() == nil {
		return strings.TrimSpace(err.Error())
	}
	inner := ce.Unwrap()
	addr, _, _ := strings.Cut(inner.Error(), " (")
	where := fmt.Sprintf("connection to server on socket \"%s\" failed: ", addr)
	if host, port, err := net.SplitHostPort(addr); err == nil && !strings.HasPrefix(addr, "/") {
		where = fmt.Sprintf("connection to server at \"%s\" (%s), port %s failed: ", ce.Config.Host, host, port)
	}
	var pg *pgconn.PgError
	if errors.As(inner, &pg) {
		return where + errorText(pg)
	}
	var errno syscall.Errno
	if errors.As(inner, &errno) {
		hint := "\n\tIs the server running locally and accepting connections on that socket?"
		if !strings.HasPrefix(addr, "/") {
			hint = "\n\tIs the server running on that host and accepting TCP/IP connections?"
		}
		return where + errnoText(errno) + hint
	}
	_, rest, _ := strings.Cut(inner.Error(), "): ")
	return where + rest
}

// printNotice prints a server message as libpq does by default.
func printNotice(log logger, n *pgconn.Notice) {
	fmt.Fprintf(log.w, "%s:  %s\n", n.Severity, n.Message)
	if n.Detail != "" {
		fmt.Fprintf(log.w, "DETAIL:  %s\n", n.Detail)
	}
	if n.Hint != "" {
		fmt.Fprintf(log.w, "HINT:  %s\n", n.Hint)
	}
}
