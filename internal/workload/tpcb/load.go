package tpcb

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/pgoltp/pgoltp/internal/field"
)

// LoadOptions are pgbench -i's options that matter for the data, plus the
// loader's parallelism.
type LoadOptions struct {
	Scale           int             `json:"scale"`            // -s: 1 branch, 10 tellers, 100000 accounts per unit
	Fillfactor      int             `json:"fillfactor"`       // -F: 10..100 (pgbench's default 100)
	Partitions      int             `json:"partitions"`       // --partitions: 0 = pgbench_accounts not partitioned
	PartitionMethod PartitionMethod `json:"partition_method"` // --partition-method: range (default) or hash
	ExtraIndex      bool            `json:"extra_index"`      // index pgbench_accounts (bid, abalance): no HOT updates
	ForeignKeys     bool            `json:"foreign_keys"`     // pgbench -I f: the foreign keys between the tables
	Unlogged        bool            `json:"unlogged"`         // --unlogged-tables
	Jobs            int             `json:"jobs"`             // parallel connections; 0 = number of CPUs (at least 2)
	Log             io.Writer       `json:"-"`                // step-by-step progress lines, like pgbench -i; nil = quiet
	// FreeDisk returns the free bytes of the server's data directory: a load
	// that would not fit is refused before it drops anything. nil: the disk
	// cannot be seen (a --dsn server): Log gets a note with the estimate.
	FreeDisk func() (int64, error) `json:"-"`
}

// LoadStep is the time one step of the load took, named like pgbench's
// "done in ... (drop tables ..., create tables ...)" line.
type LoadStep struct {
	Name    string        `json:"name"`
	Elapsed time.Duration `json:"elapsed_ns"`
}

// LoadResult says what was loaded and how long each step took.
type LoadResult struct {
	Options  LoadOptions   `json:"options"`
	Accounts int64         `json:"accounts"`
	Steps    []LoadStep    `json:"steps"`
	Elapsed  time.Duration `json:"elapsed_ns"`
}

// Validate checks the options as pgbench does, and fills in defaults; its
// errors are field errors (field.Error).
func (o *LoadOptions) Validate() error {
	if o.Scale < 1 {
		return field.New("Scale", o.Scale, "invalid {} %d: must be at least 1", o.Scale)
	}
	if o.Scale > MaxScale {
		return field.New("Scale", o.Scale, "invalid {} %d: at most %d (pgbench_tellers.tid is an int4, %d tellers per unit)", o.Scale, MaxScale, TellersPerScale)
	}
	if o.Fillfactor == 0 {
		o.Fillfactor = 100
	}
	if o.Fillfactor < 10 || o.Fillfactor > 100 {
		return field.New("Fillfactor", o.Fillfactor, "invalid {} %d: must be between 10 and 100", o.Fillfactor)
	}
	if o.Partitions < 0 {
		return field.New("Partitions", o.Partitions, "invalid {} %d: must be 0 or more", o.Partitions)
	}
	switch o.PartitionMethod {
	case "":
		o.PartitionMethod = PartitionRange
		if o.Partitions == 0 {
			o.PartitionMethod = PartitionNone
		}
	case PartitionRange, PartitionHash:
		if o.Partitions == 0 {
			return field.New("PartitionMethod", o.PartitionMethod, "{} %s needs {Partitions} greater than 0", o.PartitionMethod)
		}
	case PartitionNone:
		if o.Partitions > 0 {
			return field.New("Partitions", o.Partitions, "{} %d needs {PartitionMethod} range or hash", o.Partitions)
		}
	default:
		return field.New("PartitionMethod", o.PartitionMethod, "invalid {} %q: must be range or hash", o.PartitionMethod)
	}
	if o.Jobs < 0 {
		return field.New("Jobs", o.Jobs, "invalid {} %d: must be 1 or more", o.Jobs)
	}
	if o.Jobs == 0 {
		o.Jobs = max(2, runtime.NumCPU())
	}
	return nil
}

func (o LoadOptions) schema() schema {
	s := schema{scale: o.Scale, fillfactor: o.Fillfactor, unlogged: o.Unlogged}
	if o.Partitions > 0 {
		s.partitions, s.method = o.Partitions, o.PartitionMethod
	}
	return s
}

// Load drops and recreates the pgbench tables and fills them, like
// `pgbench -i` with its default steps "dtgvp" (plus "f" with ForeignKeys),
// but with binary COPY over Jobs connections.
//
// Where one connection loads a whole table (or a range partition) it does so
// with COPY FREEZE in the transaction that truncates it, as pgbench does, so
// the following VACUUM has nothing to freeze.
func Load(ctx context.Context, dsn string, opts LoadOptions) (*LoadResult, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	s := opts.schema()
	res := &LoadResult{Options: opts, Accounts: s.accounts()}
	logf := func(format string, args ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, format+"\n", args...)
		}
	}
	pool, err := newConnPool(ctx, dsn, opts.Jobs)
	if err != nil {
		return nil, err
	}
	defer pool.close()
	if err := checkRoom(ctx, pool.conns[0], opts); err != nil {
		return nil, err
	}

	start := time.Now()
	step := func(name string, tasks []task) error {
		t0 := time.Now()
		logf("%s...", name)
		if err := pool.run(ctx, tasks); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		res.Steps = append(res.Steps, LoadStep{Name: name, Elapsed: time.Since(t0)})
		return nil
	}

	if err := step("drop tables", []task{execTask(dropTablesSQL)}); err != nil {
		return nil, err
	}
	// The mark comes with the tables: rows are never there without it.
	if err := step("create tables", []task{execTask(append(s.createTables(), markLoadingSQL)...)}); err != nil {
		return nil, err
	}
	if err := step("generate data", generateTasks(s, opts.Jobs)); err != nil {
		return nil, err
	}
	if err := step("vacuum", vacuumTasks(s)); err != nil {
		return nil, err
	}
	var keys []task
	// The accounts key first: it is the long one, the others run beside it.
	// A sort that fits in memory builds the index several times faster than
	// an external one; the setting is this session's only.
	for i := len(primaryKeySQL) - 1; i >= 0; i-- {
		keys = append(keys, execTask(indexMemorySQL, primaryKeySQL[i]))
	}
	if opts.ExtraIndex {
		keys = append(keys, execTask(indexMemorySQL, extraIndexSQL))
	}
	if err := step("primary keys", keys); err != nil {
		return nil, err
	}
	if opts.ForeignKeys {
		if err := step("foreign keys", []task{execTask(foreignKeySQL...)}); err != nil {
			return nil, err
		}
	}
	// Only now is the load complete: a kill before this line leaves the mark
	// (loadmark.go), and Run refuses the tables.
	if err := pool.run(ctx, []task{execTask(markCompleteSQL)}); err != nil {
		return nil, fmt.Errorf("marking the load complete: %w", err)
	}
	res.Elapsed = time.Since(start)
	logf("done in %.2f s (%s).", res.Elapsed.Seconds(), stepSummary(res.Steps))
	return res, nil
}

// indexMemorySQL gives index builds enough memory to sort in memory.
const indexMemorySQL = "set maintenance_work_mem = '512MB'"

func stepSummary(steps []LoadStep) string {
	s := ""
	for i, st := range steps {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %.2f s", st.Name, st.Elapsed.Seconds())
	}
	return s
}

// generateTasks splits the data into COPY streams: branches and tellers one
// each; accounts per range partition, else in Jobs-1 aid ranges when there
// are more than two connections, else in one stream WITH FREEZE. On a small
// machine one frozen stream wins: the server's single COPY backend is the
// bottleneck either way, and a frozen table needs next to no VACUUM.
func generateTasks(s schema, jobs int) []task {
	accountRowFn := accountRow
	if s.bigint() {
		accountRowFn = bigAccountRow
	}
	n := s.accounts()
	var tasks []task
	switch {
	case s.partitions > 0 && s.method == PartitionRange:
		for p := 1; p <= s.partitions; p++ {
			lo, hi := s.rangeBounds(p)
			tasks = append(tasks, copyTask(partitionName(p), true, lo-1, hi-1, accountRowFn))
		}
	case s.partitions > 0 || jobs > 2:
		// Hash partitions route rows through the parent, where FREEZE is not
		// allowed; parallel streams into one table cannot all truncate it,
		// so they copy without FREEZE and leave VACUUM more to do. One
		// connection is kept for the small tables.
		chunks := int64(max(1, jobs-1))
		if n < chunks*10000 {
			chunks = 1
		}
		freeze := chunks == 1 && s.partitions == 0
		size := (n + chunks - 1) / chunks
		for lo := int64(0); lo < n; lo += size {
			tasks = append(tasks, copyTask(TableAccounts, freeze, lo, min(lo+size, n), accountRowFn))
		}
	default:
		tasks = append(tasks, copyTask(TableAccounts, true, 0, n, accountRowFn))
	}
	tasks = append(tasks,
		copyTask(TableBranches, true, 0, int64(s.scale)*BranchesPerScale, branchRow),
		copyTask(TableTellers, true, 0, int64(s.scale)*TellersPerScale, tellerRow),
		execTask("truncate table "+TableHistory),
	)
	return tasks
}

// vacuumTasks is pgbench's "vacuum analyze" of every table; partitions are
// vacuumed one task each so that they run in parallel.
func vacuumTasks(s schema) []task {
	var tasks []task
	if s.partitions > 0 {
		for p := 1; p <= s.partitions; p++ {
			tasks = append(tasks, execTask("vacuum analyze "+partitionName(p)))
		}
		tasks = append(tasks, execTask("analyze "+TableAccounts))
	} else {
		tasks = append(tasks, execTask(vacuumSQL[2]))
	}
	return append(tasks, execTask(vacuumSQL[0]), execTask(vacuumSQL[1]), execTask(vacuumSQL[3]))
}

// copyTask loads rows [lo, hi) of one table by binary COPY; with freeze it
// truncates the table in the same transaction and copies WITH FREEZE.
func copyTask(table string, freeze bool, lo, hi int64, row rowFunc) task {
	ident := pgx.Identifier{table}.Sanitize()
	return func(ctx context.Context, conn *pgx.Conn) error {
		sql := "copy " + ident + " from stdin with (format binary)"
		if freeze {
			if _, err := conn.Exec(ctx, "begin"); err != nil {
				return err
			}
			if _, err := conn.Exec(ctx, "truncate table "+ident); err != nil {
				return err
			}
			sql = "copy " + ident + " from stdin with (format binary, freeze on)"
		}
		if _, err := conn.PgConn().CopyFrom(ctx, newCopyRows(lo, hi, maxTuple, row), sql); err != nil {
			if freeze {
				_, _ = conn.Exec(ctx, "rollback")
			}
			return fmt.Errorf("copy %s: %w", table, err)
		}
		if freeze {
			if _, err := conn.Exec(ctx, "commit"); err != nil {
				return err
			}
		}
		return nil
	}
}

// task is one unit of loader work, run on one connection.
type task func(ctx context.Context, conn *pgx.Conn) error

// execTask runs statements in order on one connection.
func execTask(sqls ...string) task {
	return func(ctx context.Context, conn *pgx.Conn) error {
		for _, q := range sqls {
			if _, err := conn.Exec(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", firstWords(q), err)
			}
		}
		return nil
	}
}

func firstWords(q string) string {
	if len(q) > 60 {
		return q[:60] + "..."
	}
	return q
}

// connPool is a fixed set of connections that runs tasks in parallel.
type connPool struct{ conns []*pgx.Conn }

func newConnPool(ctx context.Context, dsn string, n int) (*connPool, error) {
	p := &connPool{}
	for range n {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			p.close()
			return nil, fmt.Errorf("connecting: %w", err)
		}
		p.conns = append(p.conns, c)
	}
	return p, nil
}

func (p *connPool) close() {
	for _, c := range p.conns {
		_ = c.Close(context.Background())
	}
}

// run executes tasks on the pool's connections, at most one per connection at
// a time, and returns the first error.
func (p *connPool) run(ctx context.Context, tasks []task) error {
	queue := make(chan task, len(tasks))
	for _, t := range tasks {
		queue <- t
	}
	close(queue)
	g, gctx := errgroup.WithContext(ctx)
	for _, c := range p.conns[:min(len(p.conns), len(tasks))] {
		g.Go(func() error {
			for t := range queue {
				if gctx.Err() != nil {
					return nil
				}
				if err := t(gctx, c); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err() // interrupted: the remaining tasks did not run
}
