package tpcc

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/field"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// LoadOptions say what to load and how.
type LoadOptions struct {
	Warehouses int
	Workers    int    // parallel connections; 0 = number of CPUs
	Seed       uint64 // 0 = draw one (it is recorded in pgoltp_meta and the stats)
	Schema     string // "" = public
	// Schemas loads several independent TPC-C databases, one per schema,
	// each of Warehouses, in parallel within Workers (Schema must be
	// empty). With Seed set, every schema holds the same data.
	Schemas []string
	SchemaOptions
	// Force drops and reloads even a complete load of the same shape.
	Force bool
	// Part (--part k/n) loads only part k of n: its own contiguous range of
	// warehouses, while other processes load the rest (load_parts.go). Every
	// part needs the same Seed, so that they load one population.
	Part workload.Part
	// Progress receives progress output (nil: none). With ProgressBar it is a
	// live bar (meant for a terminal), otherwise a line every few seconds.
	Progress    io.Writer
	ProgressBar bool
	// FreeDisk returns the free bytes of the server's data directory: a load
	// that would not fit is refused before it drops anything. nil: the disk
	// cannot be seen (a --dsn server): Progress gets a note with the estimate.
	FreeDisk func() (int64, error) `json:"-"`

	roomChecked   bool          // the disk check was made for a bigger load of which this is one schema
	progressEvery time.Duration // between plain progress lines; 0: progressLineEvery
}

// LoadStats describe a finished load.
type LoadStats struct {
	Warehouses int              `json:"warehouses"`
	Workers    int              `json:"workers"`
	Seed       uint64           `json:"seed"`
	Constants  Constants        `json:"c_load"`
	Rows       map[string]int64 `json:"rows"`
	// AlreadyLoaded: a complete load of this shape was there; nothing was done.
	AlreadyLoaded bool `json:"already_loaded"`
	// Replaced: an earlier load (interrupted, or forced) was dropped first.
	Replaced bool `json:"replaced"`
	// KeptRows and KeptUnits: an interrupted load of the same shape was
	// resumed; these rows (KeptUnits tables' warehouses) were kept, checked
	// against their completion marks, and not loaded again.
	KeptRows  int64         `json:"kept_rows,omitempty"`
	KeptUnits int           `json:"kept_units,omitempty"`
	KeptCheck time.Duration `json:"kept_check_ns,omitempty"` // the check of the kept rows
	Create    time.Duration `json:"create_ns"`
	Data      time.Duration `json:"data_ns"`  // until the last COPY ends (in a whole load, the builds of the tables already in run beside it)
	Index     time.Duration `json:"index_ns"` // from there until the last index is built
	Analyze   time.Duration `json:"analyze_ns"`
	Total     time.Duration `json:"total_ns"`
	// Schema is the schema loaded; with several, Schemas holds each one's
	// stats and the rest sums them (Total is the wall time of them all).
	Schema  string      `json:"schema"`
	Schemas []LoadStats `json:"schemas,omitempty"`
	// Part is what a part of a partitioned load loaded ("2/3 (warehouses
	// 3-4)"); Finished says it was the last part, which built the indexes
	// and marked the load complete.
	Part     string `json:"part,omitempty"`
	Finished bool   `json:"finished,omitempty"`
	// TableBytes is what the tables take on disk after the load, without
	// their indexes (pg_table_size); the load rate is given in it.
	TableBytes int64 `json:"table_bytes,omitempty"`
	// DriverCPU and DriverPeakRSS are the loading process's own cost (peak
	// RSS is VmHWM, bytes): flat in the number of warehouses.
	DriverCPU     time.Duration `json:"driver_cpu_ns,omitempty"`
	DriverPeakRSS int64         `json:"driver_peak_rss_bytes,omitempty"`
}

// TotalRows sums Rows.
func (s LoadStats) TotalRows() int64 {
	var n int64
	for _, r := range s.Rows {
		n += r
	}
	return n
}

// ErrLoadExists is returned when the schema already holds a different complete
// load, or TPC-C tables pgoltp did not create, and Force is not set.
var ErrLoadExists = errors.New("the schema already holds TPC-C data")

// ErrLoadBusy is returned when another load into the same schema is running.
var ErrLoadBusy = errors.New("load in progress")

// Validate checks the options without touching a database, so that bad input
// fails before any work starts.
func (o LoadOptions) Validate() error {
	return o.normalize()
}

func (o *LoadOptions) normalize() error {
	if len(o.Schemas) > 0 {
		if o.Schema != "" {
			return bothSchemas(o.Schema)
		}
		if err := validSchemas(o.Schemas); err != nil {
			return err
		}
	}
	if o.Warehouses < 1 || o.Warehouses > MaxWarehouses {
		return field.New("Warehouses", o.Warehouses, "warehouses must be from 1 to %d (W_ID is an int4 with room for 2*W ids, clause 1.3.1), got %d", MaxWarehouses, o.Warehouses)
	}
	if o.Workers < 0 {
		return field.New("Workers", o.Workers, "workers must be at least 1, got %d", o.Workers)
	}
	if o.Workers == 0 {
		o.Workers = runtime.NumCPU()
	}
	if o.Schema == "" && len(o.Schemas) == 0 {
		o.Schema = DefaultSchema
	}
	if o.Partitions == 1 {
		o.Partitions = 0 // one partition is no partitioning
	}
	if !o.Part.Whole() {
		if len(o.Schemas) > 0 {
			return field.New("Part", o.Part, "{} with {Schemas}: a partitioned load fills one schema; load each schema with its own group of parts")
		}
		if _, _, err := o.Part.Range(o.Warehouses); err != nil {
			return err
		}
		if o.Seed == 0 {
			return field.New("Seed", o.Seed, "{Part} %s needs {}: give every part the same seed, so that they load one population", o.Part)
		}
	}
	return o.SchemaOptions.validate()
}

// Load builds the TPC-C database of clause 4.3 in the schema of opts: tables
// without indexes, the data streamed by parallel workers with binary COPY,
// then primary keys and indexes built in parallel, then ANALYZE. pgoltp_meta
// says complete only after the last step, so an interrupted load is never
// mistaken for a good one; the next Load drops and rebuilds it.
func Load(ctx context.Context, dsn string, opts LoadOptions) (LoadStats, error) {
	start := time.Now()
	if err := opts.normalize(); err != nil {
		return LoadStats{}, err
	}
	if len(opts.Schemas) > 0 {
		return loadSchemas(ctx, dsn, opts)
	}
	pathDSN, err := WithSearchPath(dsn, opts.Schema)
	if err != nil {
		return LoadStats{}, err
	}
	conn, err := pgx.Connect(ctx, pathDSN)
	if err != nil {
		return LoadStats{}, fmt.Errorf("connecting: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))

	stats := LoadStats{Warehouses: opts.Warehouses, Workers: opts.Workers, Schema: opts.Schema}
	if !opts.Part.Whole() {
		return stats, loadPart(ctx, conn, pathDSN, opts, &stats, start)
	}
	if opts.Schema != DefaultSchema {
		if _, err := conn.Exec(ctx, createSchemaSQL(opts.Schema)); err != nil {
			return stats, fmt.Errorf("creating schema %s: %w", opts.Schema, err)
		}
	}
	unlock, err := lockSchemaForLoad(ctx, conn, opts.Schema)
	if err != nil {
		return stats, err
	}
	defer unlock()
	old, done, err := checkExistingLoad(ctx, conn, opts, &stats)
	if err != nil {
		return stats, err
	} else if done {
		stats.Total = time.Since(start)
		return stats, nil
	}
	if err := checkRoom(ctx, dsn, opts); err != nil { // once it is sure to load
		return stats, err
	}
	if old != nil {
		if resumed, err := resumeLoad(ctx, conn, pathDSN, opts, *old, &stats, start); resumed || err != nil {
			return stats, err
		}
		stats.Replaced = true
	}
	return stats, freshLoad(ctx, conn, pathDSN, opts, &stats, start)
}

// tableBytesSQL sums the sizes of the TPC-C tables ($1) of the current
// schema and their partitions, without indexes.
const tableBytesSQL = `WITH t AS (
	SELECT c.oid FROM pg_class c
	WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND c.relname = ANY($1)
)
SELECT coalesce(sum(pg_table_size(oid)), 0)::bigint FROM (
	SELECT oid FROM t UNION SELECT i.inhrelid FROM pg_inherits i JOIN t ON t.oid = i.inhparent
) r`

// freshLoad drops what the schema holds and loads everything.
func freshLoad(ctx context.Context, conn *pgx.Conn, pathDSN string, opts LoadOptions, stats *LoadStats, start time.Time) error {
	seed := chooseSeed(opts.Seed)
	stats.Seed = seed
	stats.Constants = NewLoadConstants(NewRand(seed))
	// The dates of the initial rows are timestamps without time zone: the
	// server's local wall clock, as now() in the transactions will give.
	var now, wall time.Time
	if err := conn.QueryRow(ctx, "SELECT now(), localtimestamp").Scan(&now, &wall); err != nil {
		return fmt.Errorf("reading the server time: %w", err)
	}
	pop := &population{seed: seed, warehouses: opts.Warehouses, c: stats.Constants, now: newTimestampField(wall)}

	t0 := time.Now()
	meta := Meta{Warehouses: opts.Warehouses, Load: stats.Constants, Seed: seed, LoadedAt: now,
		Partitions: opts.Partitions, ForeignKeys: opts.ForeignKeys}
	if err := createTables(ctx, conn, meta, opts.SchemaOptions); err != nil {
		return err
	}
	stats.Create = time.Since(t0)
	return finishLoad(ctx, conn, pathDSN, opts, meta, pop.units(), nil, stats, start)
}

// finishLoad loads units (kept holds the tables that already have rows: they
// are not loaded frozen), builds the indexes, analyzes, and marks the load
// complete, its completion marks dropped in the same transaction.
func finishLoad(ctx context.Context, conn *pgx.Conn, pathDSN string, opts LoadOptions, meta Meta, units []rowSource, kept map[string]bool, stats *LoadStats, start time.Time) error {
	var total int64
	for _, u := range units {
		total += int64(u.total())
	}
	prog := newLoadProgress(opts.Progress, opts.ProgressBar, total, opts.progressEvery)
	defer prog.stop()
	if err := fillTables(ctx, conn, pathDSN, opts, units, kept, prog, stats); err != nil {
		return err
	}
	if err := conn.QueryRow(ctx, tableBytesSQL, TableNames()).Scan(&stats.TableBytes); err != nil {
		return fmt.Errorf("reading the size of the tables: %w", err)
	}
	usage := driver.ReadProcessUsage()
	stats.DriverCPU, stats.DriverPeakRSS = usage.CPU, usage.PeakRSS
	stats.Total = time.Since(start)
	meta.Complete = true
	meta.LoadSeconds = stats.Total.Seconds()
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if err := writeMeta(ctx, tx, meta); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "DROP TABLE IF EXISTS "+loadDoneTable)
		return err
	})
	if err != nil {
		return err
	}
	prog.phase("done")
	return nil
}

// lockSchemaForLoad takes the schema's load lock and returns its release.
func lockSchemaForLoad(ctx context.Context, conn *pgx.Conn, schema string) (func(), error) {
	// One load per schema at a time: a second one would drop the first's tables.
	// A session lock outlives its client until the server notices the
	// disconnect, so the lock is released explicitly, and a lock still held
	// is waited for a moment before the schema is declared busy.
	const lockSQL = "SELECT pg_try_advisory_lock(hashtext('pgoltp tpcc load ' || current_schema()))"
	var locked bool
	for wait := time.Now().Add(3 * time.Second); ; {
		if err := conn.QueryRow(ctx, lockSQL).Scan(&locked); err != nil {
			return nil, fmt.Errorf("locking the schema for the load: %w", err)
		}
		if locked || time.Now().After(wait) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !locked {
		return nil, fmt.Errorf("%w: another load into schema %s is running", ErrLoadBusy, schema)
	}
	return func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(hashtext('pgoltp tpcc load ' || current_schema()))")
	}, nil
}

// checkExistingLoad decides from pgoltp_meta what to do with what the schema
// holds: done when the same complete load is already there (stats says so),
// an error when something else is there and opts.Force is not set; resume
// (its meta) when an interrupted load of the same shape is there; otherwise
// the load goes on and stats.Replaced says whether it replaces something.
func checkExistingLoad(ctx context.Context, conn *pgx.Conn, opts LoadOptions, stats *LoadStats) (resume *Meta, done bool, err error) {
	done, err = checkExisting(ctx, conn, opts, stats)
	if err != nil || done || !stats.Replaced || opts.Force {
		return nil, done, err
	}
	old, err := ReadMeta(ctx, conn)
	if err != nil || old.Complete || old.Warehouses != opts.Warehouses || old.Partitions != opts.Partitions ||
		old.ForeignKeys != opts.ForeignKeys || (opts.Seed != 0 && opts.Seed != old.Seed) {
		return nil, false, nil
	}
	stats.Replaced = false
	return &old, false, nil
}

func checkExisting(ctx context.Context, conn *pgx.Conn, opts LoadOptions, stats *LoadStats) (done bool, err error) {
	old, err := ReadMeta(ctx, conn)
	switch {
	case errors.Is(err, ErrNotLoaded):
		if n, err := countTPCCTables(ctx, conn); err != nil {
			return false, err
		} else if n > 0 && !opts.Force {
			return false, fmt.Errorf("%w: %d TPC-C tables exist in schema %s but were not loaded by pgoltp (no pgoltp_meta)", ErrLoadExists, n, opts.Schema)
		} else if n > 0 {
			stats.Replaced = true
		}
	case err != nil:
		return false, err
	case old.Complete && !opts.Force:
		if old.Warehouses == opts.Warehouses && old.Partitions == opts.Partitions && old.ForeignKeys == opts.ForeignKeys &&
			(opts.Seed == 0 || opts.Seed == old.Seed) {
			stats.AlreadyLoaded, stats.Seed, stats.Constants = true, old.Seed, old.Load
			return true, nil
		}
		return false, fmt.Errorf("%w: a complete load of %d warehouses (seed %d, partitions %d) exists in schema %s",
			ErrLoadExists, old.Warehouses, old.Seed, old.Partitions, opts.Schema)
	default:
		stats.Replaced = true // incomplete (interrupted) or forced
	}
	return false, nil
}

// chooseSeed returns seed, or a random one when it is 0.
func chooseSeed(seed uint64) uint64 {
	for seed == 0 {
		var b [8]byte
		_, _ = crand.Read(b[:])
		seed = binary.LittleEndian.Uint64(b[:])
	}
	return seed
}

// createTables drops the old tables, records the load as incomplete, and
// creates the bare tables and the completion marks' table, in one transaction: afterwards the schema either
// has its old state or a fresh incomplete load.
func createTables(ctx context.Context, db interface {
	Begin(context.Context) (pgx.Tx, error)
}, meta Meta, schema SchemaOptions) error {
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, dropSQL()); err != nil {
			return fmt.Errorf("dropping the old tables: %w", err)
		}
		if err := writeMeta(ctx, tx, meta); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, loadDoneDDL); err != nil {
			return fmt.Errorf("creating %s: %w", loadDoneTable, err)
		}
		for _, t := range tpccTables {
			for _, stmt := range t.createSQL(schema) {
				if _, err := tx.Exec(ctx, stmt); err != nil {
					return fmt.Errorf("creating %s: %w", t.name, err)
				}
			}
		}
		return nil
	})
}

// fillTables streams the rows of units over parallel workers, building each
// relation's primary key and indexes as soon as its data is in (loadQueue),
// then attaches the keys and analyzes, timing each phase into stats: the
// data phase ends with the last COPY, the index phase with the last build.
func fillTables(ctx context.Context, conn *pgx.Conn, pathDSN string, opts LoadOptions, units []rowSource, kept map[string]bool, prog *loadProgress, stats *LoadStats) error {
	workers, jobs, err := openCopy(ctx, conn, pathDSN, opts, units, kept)
	if err != nil {
		return err
	}
	defer closeWorkers(context.WithoutCancel(ctx), workers)
	if err := prepareBuilds(ctx, workers); err != nil {
		return err
	}

	t0 := time.Now()
	builds, attach := indexPlan(opts.SchemaOptions)
	var mu sync.Mutex
	rows := map[string]int64{}
	var dataEnd time.Time
	q := newLoadQueue(jobs, builds, func(left int) {
		dataEnd = time.Now()
		prog.phase(fmt.Sprintf("building the last %d of %d indexes", left, len(builds)))
	})
	copyTask := func(ctx context.Context, c *pgx.Conn, j *copyJob) error {
		n, err := j.run(ctx, c, prog.counts)
		mu.Lock()
		rows[j.table.name] += n
		mu.Unlock()
		return err
	}
	if err := q.run(ctx, workers, copyTask, buildIndex); err != nil {
		return err
	}
	if err := attachIndexes(ctx, workers[0], attach); err != nil {
		return err
	}
	if stats.Rows == nil {
		stats.Rows = map[string]int64{}
	}
	for t, n := range rows {
		stats.Rows[t] += n
	}
	stats.Data, stats.Index = dataEnd.Sub(t0), time.Since(dataEnd)

	t0 = time.Now()
	prog.phase("analyzing")
	if err := analyzeTables(ctx, workers); err != nil {
		return err
	}
	stats.Analyze = time.Since(t0)
	return nil
}

// units lists the load's units, each table's in warehouse order
// (planCopyJobs groups and orders them for the workers).
func (p *population) units() []rowSource {
	units := []rowSource{p.items(), p.warehouseRows(), p.districtRows()}
	for w := 1; w <= p.warehouses; w++ {
		units = append(units, p.stockRows(w), p.orderLineRows(w), p.customerRows(w),
			p.orderRows(w), p.historyRows(w), p.newOrderRows(w))
	}
	return units
}

// countTPCCTables counts the TPC-C table names present in the current schema.
func countTPCCTables(ctx context.Context, conn *pgx.Conn) (int, error) {
	var n int
	err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_class c
		WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND c.relkind IN ('r', 'p') AND c.relname = ANY($1)`,
		TableNames()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("looking for existing tables: %w", err)
	}
	return n, nil
}

// openWorkers opens n connections set up for bulk work. Asynchronous commit is
// safe here: the final commit of pgoltp_meta is synchronous and flushes the WAL
// of every earlier commit with it.
// openCopy opens the load's worker connections and plans the COPY jobs of
// units over them (per partition when the tables are partitioned). The
// caller closes the workers. The tables in kept have rows already: their
// jobs are not frozen (a frozen job empties its relation first).
func openCopy(ctx context.Context, conn *pgx.Conn, pathDSN string, opts LoadOptions, units []rowSource, kept map[string]bool) ([]*pgx.Conn, []copyJob, error) {
	workers, err := openWorkers(ctx, pathDSN, opts.Workers)
	if err != nil {
		return nil, nil, err
	}
	var partitionOf map[int]int
	if opts.Partitions > 1 {
		if partitionOf, err = warehousePartitions(ctx, conn, opts.Warehouses, opts.Partitions); err != nil {
			closeWorkers(context.WithoutCancel(ctx), workers)
			return nil, nil, err
		}
	}
	jobs := planCopyJobs(units, opts.SchemaOptions, partitionOf, opts.Workers)
	for i := range jobs {
		jobs[i].freeze = jobs[i].freeze && !kept[jobs[i].table.name]
	}
	return workers, jobs, nil
}

func openWorkers(ctx context.Context, dsn string, n int) ([]*pgx.Conn, error) {
	conns := make([]*pgx.Conn, 0, n)
	for range n {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			closeWorkers(ctx, conns)
			return nil, fmt.Errorf("connecting worker: %w", err)
		}
		conns = append(conns, c)
		if _, err := c.Exec(ctx, "SET synchronous_commit = off"); err != nil {
			closeWorkers(ctx, conns)
			return nil, fmt.Errorf("setting up worker: %w", err)
		}
	}
	return conns, nil
}

func closeWorkers(ctx context.Context, conns []*pgx.Conn) {
	for _, c := range conns {
		_ = c.Close(ctx)
	}
}

// runParallel runs job(conn, i) for i in 0..n-1 over the connections, each
// connection taking the next index when free; the first error cancels the rest.
func runParallel(ctx context.Context, conns []*pgx.Conn, n int, job func(ctx context.Context, conn *pgx.Conn, i int) error) error {
	g, gctx := errgroup.WithContext(ctx)
	var next atomic.Int64
	for _, c := range conns {
		g.Go(func() error {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || gctx.Err() != nil {
					return nil
				}
				if err := job(gctx, c, i); err != nil {
					return err
				}
			}
		})
	}
	err := g.Wait()
	if ctx.Err() != nil {
		// Interrupted: say so, not what the cut connections reported.
		return context.Cause(ctx)
	}
	return err
}

// loadData runs the copy jobs over the workers and returns the rows per table.
func loadData(ctx context.Context, conns []*pgx.Conn, jobs []copyJob, progress *loadCounts) (map[string]int64, error) {
	var mu sync.Mutex
	rows := map[string]int64{}
	err := runParallel(ctx, conns, len(jobs), func(ctx context.Context, conn *pgx.Conn, i int) error {
		n, err := jobs[i].run(ctx, conn, progress)
		if err != nil {
			return err
		}
		mu.Lock()
		rows[jobs[i].table.name] += n
		mu.Unlock()
		return nil
	})
	return rows, err
}

// buildIndexes builds the indexes in parallel, biggest first, then attaches
// them as primary keys (and adds foreign keys) one at a time.
func buildIndexes(ctx context.Context, conns []*pgx.Conn, builds []indexBuild, attach []string) error {
	if err := prepareBuilds(ctx, conns); err != nil {
		return err
	}
	if err := newLoadQueue(nil, builds, nil).run(ctx, conns, nil, buildIndex); err != nil {
		return err
	}
	return attachIndexes(ctx, conns[0], attach)
}

// prepareBuilds sets the workers' sessions up for index builds.
func prepareBuilds(ctx context.Context, conns []*pgx.Conn) error {
	for _, c := range conns {
		// Our own parallelism already fills the CPUs; a sort that fits in
		// memory avoids temp files. Session settings only.
		if _, err := c.Exec(ctx, "SET maintenance_work_mem = '256MB'"); err != nil {
			return err
		}
		// (PostgreSQL 10 has no parallel index builds, nor the setting.)
		if _, err := c.Exec(ctx, "SELECT set_config(name, '0', false) FROM pg_settings WHERE name = 'max_parallel_maintenance_workers'"); err != nil {
			return err
		}
	}
	return nil
}

func buildIndex(ctx context.Context, conn *pgx.Conn, b *indexBuild) error {
	if _, err := conn.Exec(ctx, b.sql); err != nil {
		return fmt.Errorf("%s: %w", b.sql, err)
	}
	return nil
}

// attachIndexes turns the built indexes into primary keys and adds the
// foreign keys, one statement at a time.
func attachIndexes(ctx context.Context, conn *pgx.Conn, attach []string) error {
	for _, stmt := range attach {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return nil
}

// analyzeTables runs ANALYZE on every table, in parallel.
func analyzeTables(ctx context.Context, conns []*pgx.Conn) error {
	names := TableNames()
	slices.SortStableFunc(names, func(a, b string) int { return tableCost[b] - tableCost[a] })
	return runParallel(ctx, conns, len(names), func(ctx context.Context, conn *pgx.Conn, i int) error {
		if _, err := conn.Exec(ctx, "ANALYZE "+names[i]); err != nil {
			return fmt.Errorf("ANALYZE %s: %w", names[i], err)
		}
		return nil
	})
}
