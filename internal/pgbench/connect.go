package pgbench

import (
	"context"
	"fmt"
	"strings"

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
	log.error("%s", strings.TrimSpace(err.Error()))
	return nil, err
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
