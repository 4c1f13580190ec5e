package pgbench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Per scale unit, as pgbench.
const (
	nBranches = 1
	nTellers  = 10
	nAccounts = 100000
	// scale32BitThreshold is the scale from which account ids are bigint.
	scale32BitThreshold = 20000
)

// initStep is one letter of -I.
type initStep struct {
	name string // in the "done in" summary
	run  func(in *initializer, ctx context.Context) error
}

var initSteps = map[byte]initStep{
	'd': {"drop tables", (*initializer).dropTables},
	't': {"create tables", (*initializer).createTables},
	'g': {"client-side generate", (*initializer).generateClientSide},
	'G': {"server-side generate", (*initializer).generateServerSide},
	'v': {"vacuum", (*initializer).vacuum},
	'p': {"primary keys", (*initializer).primaryKeys},
	'f': {"foreign keys", (*initializer).foreignKeys},
}

// initializer runs -i's steps on one connection.
type initializer struct {
	o    *Options
	conn *pgx.Conn
	log  logger
	tty  bool // stderr is a terminal: progress stays on one line
}

// Initialize runs -i's steps as pgbench does, with its messages on stderr.
func Initialize(ctx context.Context, o *Options, env Env) error {
	log := logger{w: env.Stderr, debug: o.Debug}
	conn, err := o.connect(ctx, log)
	if err != nil {
		return log.fatal("could not create connection for initialization")
	}
	defer conn.Close(context.Background())
	in := &initializer{o: o, conn: conn, log: log, tty: isTerminal(env.Stderr)}
	var total float64
	var done []string
	for i := 0; i < len(o.InitSteps); i++ {
		step, ok := initSteps[o.InitSteps[i]]
		if !ok { // ' ', left by -n
			continue
		}
		start := time.Now()
		if err := step.run(in, ctx); err != nil {
			return err
		}
		secs := time.Since(start).Seconds()
		total += secs
		done = append(done, fmt.Sprintf("%s %.2f s", step.name, secs))
	}
	fmt.Fprintf(env.Stderr, "done in %.2f s (%s).\n", total, strings.Join(done, ", "))
	return nil
}

// exec is pgbench's executeStatement: a failure ends pgbench with exit 1.
func (in *initializer) exec(ctx context.Context, sql string) error {
	if _, err := in.conn.Exec(ctx, sql); err != nil {
		in.log.error("query failed: %s", queryErrorText(err, sql))
		in.log.detail("Query was: %s", sql)
		return &Exit{Code: 1}
	}
	return nil
}

func (in *initializer) dropTables(ctx context.Context) error {
	fmt.Fprintln(in.log.w, "dropping old tables...")
	return in.exec(ctx, "drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers")
}

func (in *initializer) truncateTables(ctx context.Context) error {
	return in.exec(ctx, "truncate table pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers")
}

func (in *initializer) vacuum(ctx context.Context) error {
	fmt.Fprintln(in.log.w, "vacuuming...")
	for _, t := range []string{"pgbench_branches", "pgbench_tellers", "pgbench_accounts", "pgbench_history"} {
		if err := in.exec(ctx, "vacuum analyze "+t); err != nil {
			return err
		}
	}
	return nil
}

func (in *initializer) primaryKeys(ctx context.Context) error {
	fmt.Fprintln(in.log.w, "creating primary keys...")
	for _, t := range []string{"pgbench_branches add primary key (bid)", "pgbench_tellers add primary key (tid)", "pgbench_accounts add primary key (aid)"} {
		sql := "alter table " + t
		if in.o.IndexTablespace != "" {
			sql += " using index tablespace " + pgx.Identifier{in.o.IndexTablespace}.Sanitize()
		}
		if err := in.exec(ctx, sql); err != nil {
			return err
		}
	}
	return nil
}

func (in *initializer) foreignKeys(ctx context.Context) error {
	fmt.Fprintln(in.log.w, "creating foreign keys...")
	for _, k := range []string{
		"pgbench_tellers add constraint pgbench_tellers_bid_fkey foreign key (bid) references pgbench_branches",
		"pgbench_accounts add constraint pgbench_accounts_bid_fkey foreign key (bid) references pgbench_branches",
		"pgbench_history add constraint pgbench_history_bid_fkey foreign key (bid) references pgbench_branches",
		"pgbench_history add constraint pgbench_history_tid_fkey foreign key (tid) references pgbench_tellers",
		"pgbench_history add constraint pgbench_history_aid_fkey foreign key (aid) references pgbench_accounts",
	} {
		if err := in.exec(ctx, "alter table "+k); err != nil {
			return err
		}
	}
	return nil
}
