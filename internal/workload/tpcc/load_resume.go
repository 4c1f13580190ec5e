package tpcc

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Resuming an interrupted load (killed, cancelled, the machine restarted).
// Every COPY job commits its rows together with one row per unit it loaded
// (a table's rows of one warehouse; item, warehouse and district whole, as
// warehouse 0) in pgoltp_load_done, in the same transaction: a mark exists
// exactly when its rows are committed. The next load of the same shape and
// seed checks the marks against the tables (the rows of every table per
// warehouse must be what the marks say, and nothing else), keeps those
// units, and loads only the others, with the seed, C_LOAD and load time of
// the interrupted load, so that the end result is the data an uninterrupted
// load would have written. The marks go when the load is marked complete.
const loadDoneTable = "pgoltp_load_done"

const loadDoneDDL = `CREATE TABLE pgoltp_load_done (
	tbl   text NOT NULL,
	w     integer NOT NULL,
	nrows bigint NOT NULL,
	PRIMARY KEY (tbl, w)
)`

// unitKey names one unit of the load: a table and its warehouse (0 for the
// units that are a whole table).
type unitKey struct {
	table string
	w     int
}

func keyOf(u rowSource) unitKey { return unitKey{u.table(), u.warehouse()} }

// errMarksDisagree says the tables do not hold what the completion marks say:
// the interrupted load cannot be kept and is rebuilt.
var errMarksDisagree = errors.New("the loaded rows do not match the load's completion marks")

// markDone records units (with the rows each wrote) as loaded, in tx.
func markDone(ctx context.Context, tx pgx.Tx, units []rowSource, rows []int64) error {
	tables := make([]string, len(units))
	ws := make([]int32, len(units))
	for i, u := range units {
		tables[i], ws[i] = u.table(), int32(u.warehouse())
	}
	_, err := tx.Exec(ctx, `INSERT INTO pgoltp_load_done (tbl, w, nrows)
		SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[])`, tables, ws, rows)
	if err != nil {
		return fmt.Errorf("marking the loaded rows: %w", err)
	}
	return nil
}

// readDone reads the completion marks of the schema's interrupted load; none
// (nil) when the load left no marks table (one from before resumable loads).
func readDone(ctx context.Context, conn *pgx.Conn) (map[unitKey]int64, error) {
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass('pgoltp_load_done') IS NOT NULL").Scan(&exists); err != nil || !exists {
		return nil, err
	}
	rows, err := conn.Query(ctx, "SELECT tbl, w, nrows FROM pgoltp_load_done")
	if err != nil {
		return nil, fmt.Errorf("reading the load's completion marks: %w", err)
	}
	done := map[unitKey]int64{}
	for rows.Next() {
		var k unitKey
		var n int64
		if err := rows.Scan(&k.table, &k.w, &n); err != nil {
			return nil, err
		}
		done[k] = n
	}
	return done, rows.Err()
}

// checkDone compares every table's rows per warehouse with the marks, a table
// per connection: each warehouse's count must be its mark's, and no
// warehouse without a mark may have rows (an interrupted COPY's rows are
// dead, so they are not counted). It returns errMarksDisagree (wrapped,
// naming the first difference) when they differ.
func checkDone(ctx context.Context, conns []*pgx.Conn, done map[unitKey]int64) error {
	var mu sync.Mutex
	var differences []string
	err := runParallel(ctx, conns, len(tpccTables), func(ctx context.Context, conn *pgx.Conn, i int) error {
		t := tpccTables[i]
		by := "0"
		if t.warehouseColumn != "" {
			by = t.warehouseColumn
		}
		rows, err := conn.Query(ctx, fmt.Sprintf("SELECT %s, count(*) FROM %s GROUP BY 1", by, t.name))
		if err != nil {
			return fmt.Errorf("counting %s: %w", t.name, err)
		}
		found := map[int]int64{}
		for rows.Next() {
			var w int
			var n int64
			if err := rows.Scan(&w, &n); err != nil {
				return err
			}
			found[w] = n
		}
		if err := rows.Err(); err != nil {
			return err
		}
		diff := compareMarks(t.name, found, done)
		mu.Lock()
		differences = append(differences, diff...)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return err
	}
	if len(differences) > 0 {
		sort.Strings(differences)
		return fmt.Errorf("%w: %s", errMarksDisagree, strings.Join(differences[:min(3, len(differences))], "; "))
	}
	return nil
}

// compareMarks lists where table's rows per warehouse (found) differ from
// its marks in done.
func compareMarks(table string, found map[int]int64, done map[unitKey]int64) []string {
	var diff []string
	for k, n := range done {
		if k.table == table && found[k.w] != n {
			diff = append(diff, fmt.Sprintf("%s warehouse %d has %d rows, its mark %d", table, k.w, found[k.w], n))
		}
	}
	for w, n := range found {
		if _, ok := done[unitKey{table, w}]; !ok {
			diff = append(diff, fmt.Sprintf("%s warehouse %d has %d rows and no mark", table, w, n))
		}
	}
	return diff
}

// dropIndexesSQL lists the statements that remove the keys and indexes an
// interrupted index phase left on the TPC-C tables: foreign keys, then
// primary keys, then indexes, partitioned parents first, so that what they
// own goes with them.
const dropIndexesSQL = `WITH parents AS (
	SELECT c.oid, c.relkind FROM pg_class c
	WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
	  AND c.relkind IN ('r', 'p') AND c.relname = ANY($1)
), tpcc AS (
	SELECT oid, relkind FROM parents
	UNION ALL
	SELECT c.oid, c.relkind FROM pg_inherits i JOIN parents p ON p.oid = i.inhparent JOIN pg_class c ON c.oid = i.inhrelid
)
SELECT stmt FROM (
	SELECT format('ALTER TABLE %s DROP CONSTRAINT IF EXISTS %I', con.conrelid::regclass, con.conname) AS stmt,
		1 AS step, con.contype = 'p' AS late, t.relkind <> 'p' AS child
	FROM pg_constraint con JOIN tpcc t ON t.oid = con.conrelid WHERE con.contype IN ('p', 'f')
	  AND coalesce((to_jsonb(con) ->> 'conparentid')::oid, 0) = 0 -- not one a parent's constraint owns (no such column before 11)
	UNION ALL
	SELECT format('DROP INDEX IF EXISTS %s', i.indexrelid::regclass), 2, false, ic.relkind <> 'I'
	FROM pg_index i JOIN tpcc t ON t.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid
) s ORDER BY step, late, child`

// dropIndexes removes what dropIndexesSQL lists.
func dropIndexes(ctx context.Context, conn *pgx.Conn) error {
	rows, err := conn.Query(ctx, dropIndexesSQL, TableNames())
	if err != nil {
		return fmt.Errorf("listing the indexes of the interrupted load: %w", err)
	}
	stmts, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("listing the indexes of the interrupted load: %w", err)
	}
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// resumeLoad goes on with the interrupted load old: it checks the units
// marked done against the tables and, if they agree, loads only the rest.
// resumed is false when there is nothing to resume from (no marks, or marks
// the tables disagree with, said in opts.Progress): the caller rebuilds.
func resumeLoad(ctx context.Context, conn *pgx.Conn, pathDSN string, opts LoadOptions, old Meta, stats *LoadStats, start time.Time) (resumed bool, err error) {
	done, err := readDone(ctx, conn)
	if err != nil || done == nil {
		return false, err
	}
	t0 := time.Now()
	if err := checkDoneOver(ctx, pathDSN, opts.Workers, done); errors.Is(err, errMarksDisagree) {
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "rebuilding the interrupted load: %v\n", err)
		}
		return false, nil
	} else if err != nil {
		return false, err
	}
	stats.KeptCheck = time.Since(t0)
	if err := dropIndexes(ctx, conn); err != nil {
		return false, err
	}
	stats.Seed, stats.Constants = old.Seed, old.Load
	var wall time.Time // the interrupted load's wall clock, as its rows have it
	if err := conn.QueryRow(ctx, "SELECT $1::timestamptz::timestamp", old.LoadedAt).Scan(&wall); err != nil {
		return false, fmt.Errorf("reading the load time: %w", err)
	}
	pop := &population{seed: old.Seed, warehouses: old.Warehouses, c: old.Load, now: newTimestampField(wall)}
	var rest []rowSource
	kept := map[string]bool{}
	stats.Rows = map[string]int64{}
	for _, u := range pop.units() {
		if n, ok := done[keyOf(u)]; ok {
			kept[u.table()] = true
			stats.Rows[u.table()] += n
			stats.KeptRows += n
			stats.KeptUnits++
			continue
		}
		rest = append(rest, u)
	}
	if err := truncateUnkept(ctx, conn, kept); err != nil {
		return false, err
	}
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, "resuming the interrupted load: %s\n", stats.keptText())
	}
	return true, finishLoad(ctx, conn, pathDSN, opts, old, rest, kept, stats, start)
}

// checkDoneOver runs checkDone on connections of its own.
func checkDoneOver(ctx context.Context, pathDSN string, workers int, done map[unitKey]int64) error {
	conns, err := openWorkers(ctx, pathDSN, workers)
	if err != nil {
		return err
	}
	defer closeWorkers(context.WithoutCancel(ctx), conns)
	return checkDone(ctx, conns, done)
}

// truncateUnkept empties the tables none of whose rows are kept: an
// interrupted COPY's dead rows go with their space.
func truncateUnkept(ctx context.Context, conn *pgx.Conn, kept map[string]bool) error {
	var empty []string
	for _, name := range TableNames() {
		if !kept[name] {
			empty = append(empty, name)
		}
	}
	if len(empty) == 0 {
		return nil
	}
	if _, err := conn.Exec(ctx, "TRUNCATE "+strings.Join(empty, ", ")); err != nil {
		return fmt.Errorf("emptying the tables to load again: %w", err)
	}
	return nil
}

// keptText says what a resumed load kept and how it was checked.
func (st LoadStats) keptText() string {
	return fmt.Sprintf("kept %d rows in %d table chunks already loaded (checked in %.1fs: every table's rows per warehouse "+
		"equal the completion marks committed with them, and no other rows are there)", st.KeptRows, st.KeptUnits, st.KeptCheck.Seconds())
}
