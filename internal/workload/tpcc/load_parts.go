package tpcc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/field"
)

// Partitioned loads (tpcc load --part k/n): n processes, on one machine or
// several, load one database together, each the per-warehouse rows of its own
// contiguous range of warehouses (workload.Part.Range). Part 1 also loads the
// shared tables: item, and warehouse and district (tiny, and generated as one
// stream each, so the data is that of a whole load with the same seed).
//
// The parts meet in the TPC-C schema itself, in pgoltp_load_parts (one row
// per part), under a transaction advisory lock: the first part to arrive
// drops what was there, creates the bare tables and records the load as
// incomplete, with the seed; the others join that load when it has the same
// seed and number of parts. Every part streams its rows without COPY FREEZE
// (the parts share the tables, and FREEZE needs a table of one's own), then
// marks itself done; the last part to finish builds the indexes, analyzes,
// and only then marks the load complete in pgoltp_meta.
const loadPartsDDL = `CREATE TABLE IF NOT EXISTS pgoltp_load_parts (
	part   integer PRIMARY KEY,
	parts  integer NOT NULL,
	seed   bigint NOT NULL,
	status text NOT NULL
)`

// loadPartsLock serializes the parts' bookkeeping in one schema ($1): taken
// before the schema may exist, so it is keyed by the name given.
const loadPartsLock = "SELECT pg_advisory_xact_lock(hashtext('pgoltp tpcc load parts ' || $1))"

// ErrPartLoaded says this part of the same partitioned load was started
// before (it may have been interrupted half-way).
var ErrPartLoaded = errors.New("part already loaded")

// loadPart is Load for one part of a partitioned load.
func loadPart(ctx context.Context, conn *pgx.Conn, pathDSN string, opts LoadOptions, stats *LoadStats, start time.Time) error {
	if err := checkRoom(ctx, pathDSN, opts); err != nil {
		return err
	}
	first, count, err := opts.Part.Range(opts.Warehouses)
	if err != nil {
		return err
	}
	stats.Seed = opts.Seed
	stats.Constants = NewLoadConstants(NewRand(opts.Seed))
	meta, joined, err := joinPartLoad(ctx, conn, opts, stats)
	if err != nil || stats.AlreadyLoaded {
		return err
	}
	stats.Part = fmt.Sprintf("%s (warehouses %d-%d)", opts.Part, first, first+count-1)
	if !joined {
		stats.Create = time.Since(start)
	}

	units, err := partRows(ctx, conn, opts, stats.Constants, first, count)
	if err != nil {
		return err
	}
	var total int64
	for _, u := range units {
		total += int64(u.total())
	}
	prog := newLoadProgress(opts.Progress, opts.ProgressBar, total, opts.progressEvery)
	defer prog.stop()
	workers, jobs, err := openCopy(ctx, conn, pathDSN, opts, units, nil)
	if err != nil {
		return err
	}
	defer closeWorkers(context.WithoutCancel(ctx), workers)
	for i := range jobs {
		jobs[i].freeze = false // the tables are shared with the other parts
	}
	t0 := time.Now()
	if stats.Rows, err = loadData(ctx, workers, jobs, prog.counts); err != nil {
		return err
	}
	stats.Data = time.Since(t0)

	last, err := finishPart(ctx, conn, opts.Schema, opts.Part.K)
	if err != nil || !last {
		stats.Total = time.Since(start)
		return err
	}
	return completePartLoad(ctx, conn, workers, opts, meta, stats, prog, start)
}

// partRows are the rows part opts.Part loads: its warehouses first..first+
// count-1 and, for part 1, the item, warehouse and district tables.
func partRows(ctx context.Context, conn *pgx.Conn, opts LoadOptions, c Constants, first, count int) ([]rowSource, error) {
	var wall time.Time
	if err := conn.QueryRow(ctx, "SELECT localtimestamp").Scan(&wall); err != nil {
		return nil, fmt.Errorf("reading the server time: %w", err)
	}
	pop := &population{seed: opts.Seed, warehouses: opts.Warehouses, c: c, now: newTimestampField(wall)}
	var units []rowSource
	if opts.Part.K == 1 {
		units = append(units, pop.items(), pop.warehouseRows(), pop.districtRows())
	}
	for w := first; w < first+count; w++ {
		units = append(units, pop.stockRows(w), pop.orderLineRows(w), pop.customerRows(w),
			pop.orderRows(w), pop.historyRows(w), pop.newOrderRows(w))
	}
	return units, nil
}

// completePartLoad is the last part to finish: indexes, ANALYZE, and the
// load is marked complete (its parts table dropped).
func completePartLoad(ctx context.Context, conn *pgx.Conn, workers []*pgx.Conn, opts LoadOptions, meta Meta, stats *LoadStats, prog *loadProgress, start time.Time) error {
	stats.Finished = true
	t0 := time.Now()
	builds, attach := indexPlan(opts.SchemaOptions)
	prog.phase(fmt.Sprintf("building %d indexes", len(builds)))
	if err := buildIndexes(ctx, workers, builds, attach); err != nil {
		return err
	}
	stats.Index = time.Since(t0)
	t0 = time.Now()
	prog.phase("analyzing")
	if err := analyzeTables(ctx, workers); err != nil {
		return err
	}
	stats.Analyze = time.Since(t0)
	stats.Total = time.Since(start)
	meta.Complete = true
	meta.LoadSeconds = time.Since(meta.LoadedAt).Seconds()
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if err := writeMeta(ctx, tx, meta); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "DROP TABLE IF EXISTS pgoltp_load_parts, "+loadDoneTable)
		return err
	})
	if err == nil {
		prog.phase("done")
	}
	return err
}

// joinPartLoad starts the partitioned load (the first part to arrive) or
// joins the one under way with the same seed and number of parts, and marks
// this part as loading. It returns the load's meta row and whether it joined
// an existing one; stats.AlreadyLoaded when a complete load of the same
// shape and seed is there.
func joinPartLoad(ctx context.Context, conn *pgx.Conn, opts LoadOptions, stats *LoadStats) (meta Meta, joined bool, err error) {
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, loadPartsLock, opts.Schema); err != nil {
			return fmt.Errorf("locking the schema for the load: %w", err)
		}
		if opts.Schema != DefaultSchema {
			if _, err := tx.Exec(ctx, createSchemaSQL(opts.Schema)); err != nil {
				return fmt.Errorf("creating schema %s: %w", opts.Schema, err)
			}
		}
		old, loaded, underWay, parts, err := readPartLoad(ctx, tx)
		if err != nil {
			return err
		}
		sameShape := loaded && old.Warehouses == opts.Warehouses && old.Seed == opts.Seed &&
			old.Partitions == opts.Partitions && old.ForeignKeys == opts.ForeignKeys
		switch {
		case sameShape && old.Complete && !opts.Force:
			stats.AlreadyLoaded = true
			return nil
		case underWay && sameShape && parts == opts.Part.N:
			var status string
			if err := tx.QueryRow(ctx, "SELECT status FROM pgoltp_load_parts WHERE part = $1", opts.Part.K).Scan(&status); err != nil {
				return err
			}
			if status != "pending" {
				return fmt.Errorf("%w: %w", ErrPartLoaded, field.New("Seed", opts.Seed,
					"part %s of the load with seed %d is %s already; load all parts again with {Force} and a new {}", opts.Part, opts.Seed, status))
			}
			meta, joined = old, true
			_, err := tx.Exec(ctx, "UPDATE pgoltp_load_parts SET status = 'loading' WHERE part = $1", opts.Part.K)
			return err
		case underWay && !opts.Force:
			return fmt.Errorf("%w: %w", ErrLoadExists, field.New("Part", opts.Part,
				"a load in %d parts of %d warehouses with seed %d is under way in schema %s; give every part the same {Warehouses}, {Seed} and {} n, or {Force} to replace it",
				parts, old.Warehouses, old.Seed, opts.Schema))
		case loaded && old.Complete && !opts.Force:
			return fmt.Errorf("%w: a complete load of %d warehouses (seed %d, partitions %d) exists in schema %s",
				ErrLoadExists, old.Warehouses, old.Seed, old.Partitions, opts.Schema)
		case !loaded:
			if n, err := countTPCCTables(ctx, conn); err != nil {
				return err
			} else if n > 0 && !opts.Force {
				return fmt.Errorf("%w: %d TPC-C tables exist in schema %s but were not loaded by pgoltp (no pgoltp_meta)", ErrLoadExists, n, opts.Schema)
			}
		}
		stats.Replaced = loaded
		meta, err = startPartLoad(ctx, tx, opts, stats.Constants)
		return err
	})
	return meta, joined, err
}

// readPartLoad reads the schema's load meta row if there is one (loaded: a
// pgoltp load, complete or not) and, for a partitioned load under way, its
// number of parts.
func readPartLoad(ctx context.Context, tx pgx.Tx) (old Meta, loaded, underWay bool, parts int, err error) {
	// Look before reading: a failed read would abort the transaction.
	var hasMeta, hasParts bool
	if err := tx.QueryRow(ctx, "SELECT to_regclass('pgoltp_meta') IS NOT NULL, to_regclass('pgoltp_load_parts') IS NOT NULL").Scan(&hasMeta, &hasParts); err != nil {
		return old, false, false, 0, err
	}
	if hasMeta {
		old, err = ReadMeta(ctx, tx)
		if err != nil && !errors.Is(err, ErrNotLoaded) {
			return old, false, false, 0, err
		}
		loaded = err == nil
	}
	underWay = loaded && !old.Complete && hasParts
	if underWay {
		if err := tx.QueryRow(ctx, "SELECT max(parts) FROM pgoltp_load_parts").Scan(&parts); err != nil {
			return old, false, false, 0, err
		}
	}
	return old, loaded, underWay, parts, nil
}

// startPartLoad is the first part's step: a fresh incomplete load (tables
// and meta row), this part loading and every other part pending.
func startPartLoad(ctx context.Context, tx pgx.Tx, opts LoadOptions, c Constants) (Meta, error) {
	var now time.Time
	if err := tx.QueryRow(ctx, "SELECT now()").Scan(&now); err != nil {
		return Meta{}, err
	}
	meta := Meta{Warehouses: opts.Warehouses, Load: c, Seed: opts.Seed, LoadedAt: now,
		Partitions: opts.Partitions, ForeignKeys: opts.ForeignKeys}
	if err := createTables(ctx, tx, meta, opts.SchemaOptions); err != nil {
		return Meta{}, err
	}
	for _, q := range []string{"DROP TABLE IF EXISTS pgoltp_load_parts", loadPartsDDL} {
		if _, err := tx.Exec(ctx, q); err != nil {
			return Meta{}, err
		}
	}
	_, err := tx.Exec(ctx, `INSERT INTO pgoltp_load_parts (part, parts, seed, status)
		SELECT k, $1, $2, CASE WHEN k = $3 THEN 'loading' ELSE 'pending' END FROM generate_series(1, $1::int) k`,
		opts.Part.N, int64(opts.Seed), opts.Part.K)
	return meta, err
}

// finishPart marks part k done and says whether it was the last one.
func finishPart(ctx context.Context, conn *pgx.Conn, schema string, k int) (last bool, err error) {
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, loadPartsLock, schema); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE pgoltp_load_parts SET status = 'done' WHERE part = $1", k); err != nil {
			return err
		}
		var left int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM pgoltp_load_parts WHERE status <> 'done'").Scan(&left); err != nil {
			return err
		}
		last = left == 0
		return nil
	})
	return last, err
}
