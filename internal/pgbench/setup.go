package pgbench

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TableInfo is what a run with a built-in script learns from the database.
type TableInfo struct {
	Scale           int
	PartitionMethod string // "", "range" or "hash"
	Partitions      int
}

// Setup opens the run's setup connection as pgbench does before it starts
// its clients and, when a built-in script runs, reads the scale and the
// partitioning of pgbench_accounts (overriding -s, with pgbench's warning).
func Setup(ctx context.Context, o *Options, env Env) (*pgx.Conn, TableInfo, error) {
	log := logger{w: env.Stderr, debug: o.Debug}
	info := TableInfo{Scale: o.Scale}
	conn, err := o.connect(ctx, log)
	if err != nil {
		return nil, info, log.fatal("could not create connection for setup")
	}
	if !o.InternalScript {
		return conn, info, nil
	}
	if err := conn.QueryRow(ctx, "select count(*) from pgbench_branches").Scan(&info.Scale); err != nil {
		log.error("could not count number of branches: %s", queryErrorText(err, "select count(*) from pgbench_branches"))
		var pg *pgconn.PgError
		if errors.As(err, &pg) && pg.Code == "42P01" {
			log.hint("Perhaps you need to do initialization (\"pgbench -i\") in database \"%s\".", conn.Config().Database)
		}
		conn.Close(ctx)
		return nil, info, &Exit{Code: 1}
	}
	if o.ScaleGiven {
		log.print("warning: ", "scale option ignored, using count from pgbench_branches table (%d)", info.Scale)
	}
	var strategy *string
	var n int64
	err = conn.QueryRow(ctx, `select p.partstrat, pg_catalog.count(i.inhparent)
		from pg_catalog.pg_class as c
		join pg_catalog.pg_namespace as n on (n.oid = c.relnamespace)
		cross join lateral (select pg_catalog.array_position(pg_catalog.current_schemas(true), n.nspname)) as o(n)
		left join pg_catalog.pg_partitioned_table as p on (p.partrelid = c.oid)
		left join pg_catalog.pg_inherits as i on (c.oid = i.inhparent)
		where c.relname = 'pgbench_accounts' and o.n is not null
		group by o.n, 1 order by o.n asc limit 1`).Scan(&strategy, &n)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		log.error("no pgbench_accounts table found in search_path")
		log.hint("Perhaps you need to do initialization (\"pgbench -i\") in database \"%s\".", conn.Config().Database)
		conn.Close(ctx)
		return nil, info, &Exit{Code: 1}
	case err == nil && strategy != nil:
		info.Partitions = int(n)
		info.PartitionMethod = map[string]string{"r": "range", "h": "hash"}[*strategy]
		if info.PartitionMethod == "" {
			conn.Close(ctx)
			return nil, info, log.fatal("unexpected partition method: \"%s\"", *strategy)
		}
	}
	return conn, info, nil
}
