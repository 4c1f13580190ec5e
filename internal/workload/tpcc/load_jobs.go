package tpcc

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// copyJob is the data of one relation (a table, or one partition of it), or a
// slice of it, streamed by one worker.
//
// Frozen jobs own their relation: in one transaction they TRUNCATE it (empty
// already; this makes it "new in this transaction") and COPY ... FREEZE every
// unit. Frozen rows carry their hint bits and visibility from the start, so
// the index builds, ANALYZE and the first transactions after the load do not
// rewrite every page to set hint bits — which, with data checksums on (the
// default from PostgreSQL 18), also writes a full-page image of every page to
// the WAL. The tables stay ordinary logged tables; no server setting is assumed.
//
// A relation too big for one worker to finish in its share of the time is cut
// into plain (unfrozen) COPY slices that workers stream side by side instead.
type copyJob struct {
	rel    string
	table  tableDef
	units  []rowSource
	freeze bool
	bytes  int64 // estimated, for ordering and splitting
}

// rowBytes estimates the COPY size of one row of each table (from the
// population rules), to balance the jobs.
var rowBytes = map[string]int64{
	"warehouse": 90, "district": 95, "customer": 580, "history": 65, "new_order": 30,
	"orders": 47, "order_line": 72, "item": 76, "stock": 306,
}

// maxJobBytes caps a COPY job (estimated COPY bytes): the most work of a
// killed load that one worker loses. A relation bigger than that is loaded
// in unfrozen slices (stock from 71 warehouses on, order_line from 100).
const maxJobBytes = 2 << 30

// planCopyJobs groups the units by relation and decides which relations are
// loaded frozen. partitionOf maps a warehouse to its partition number, when
// the per-warehouse tables are partitioned.
func planCopyJobs(units []rowSource, o SchemaOptions, partitionOf map[int]int, workers int) []copyJob {
	byRel := map[string]*copyJob{}
	var order []string
	var total int64
	for _, u := range units {
		t, _ := tableByName(u.table())
		rel := t.name
		if t.partitioned(o) {
			rel = fmt.Sprintf("%s_p%d", t.name, partitionOf[u.warehouse()])
		}
		j, ok := byRel[rel]
		if !ok {
			j = &copyJob{rel: rel, table: t, freeze: true}
			byRel[rel] = j
			order = append(order, rel)
		}
		b := int64(u.total()) * rowBytes[t.name]
		j.units = append(j.units, u)
		j.bytes += b
		total += b
	}
	// A worker's fair share, with some slack, and at most maxJobBytes: frozen
	// relations up to this size. A job is one transaction, so this is also the
	// most work a worker loses when the load is killed (load_resume.go).
	limit := min(total/int64(max(workers, 1))*5/4, maxJobBytes)
	var jobs []copyJob
	for _, rel := range order {
		j := byRel[rel]
		if j.bytes <= limit || len(j.units) == 1 {
			jobs = append(jobs, *j)
			continue
		}
		pieces := int((j.bytes + limit - 1) / limit)
		per := (len(j.units) + pieces - 1) / pieces
		for start := 0; start < len(j.units); start += per {
			part := j.units[start:min(start+per, len(j.units))]
			var b int64
			for _, u := range part {
				b += int64(u.total()) * rowBytes[j.table.name]
			}
			jobs = append(jobs, copyJob{rel: rel, table: j.table, units: part, bytes: b})
		}
	}
	// Table by table, so that each is complete, and its indexes built
	// (loadQueue), as early as can be; the biggest slices first in a table.
	slices.SortStableFunc(jobs, func(a, b copyJob) int {
		return cmp.Or(cmp.Compare(slices.Index(copyOrder, a.table.name), slices.Index(copyOrder, b.table.name)),
			cmp.Compare(a.rel, b.rel), cmp.Compare(b.bytes, a.bytes))
	})
	return jobs
}

// copyOrder is the order the tables are loaded in: the most index sorting
// per warehouse first (order_line's key over 300,000 rows, stock's over
// 100,000, customer's two over 30,000), so that the longest builds run
// beside the rest of the COPY; the small tables last, and history, which
// has no index, at the very end, so that the workers finish together.
var copyOrder = []string{"order_line", "stock", "customer", "orders", "new_order", "item", "district", "warehouse", "history"}

// warehousePartitions asks the server which hash partition each warehouse
// falls in (every partitioned table hashes the same integer key alike).
func warehousePartitions(ctx context.Context, conn *pgx.Conn, warehouses, partitions int) (map[int]int, error) {
	rows, err := conn.Query(ctx, `SELECT w, p FROM generate_series(1, $1) w, generate_series(0, $2 - 1) p
		WHERE satisfies_hash_partition('stock'::regclass, $2, p, w)`, warehouses, partitions)
	if err != nil {
		return nil, fmt.Errorf("mapping warehouses to partitions: %w", err)
	}
	m := map[int]int{}
	for rows.Next() {
		var w, p int
		if err := rows.Scan(&w, &p); err != nil {
			return nil, err
		}
		m[w] = p
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(m) != warehouses {
		return nil, fmt.Errorf("mapping warehouses to partitions: %d of %d mapped", len(m), warehouses)
	}
	return m, nil
}

// run streams the job's units over conn and returns the rows written. The
// job is one transaction, its completion marks (load_resume.go) with it.
func (j copyJob) run(ctx context.Context, conn *pgx.Conn, progress *loadCounts) (int64, error) {
	sql := copyIntoSQL(j.rel, j.table, j.freeze)
	var rows int64
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if j.freeze {
			if _, err := tx.Exec(ctx, "TRUNCATE "+j.rel); err != nil {
				return fmt.Errorf("TRUNCATE %s: %w", j.rel, err)
			}
		}
		written := make([]int64, len(j.units))
		for i, u := range j.units {
			tag, err := conn.PgConn().CopyFrom(ctx, newCopySource(u, true, progress), sql)
			if err != nil {
				return fmt.Errorf("COPY %s: %w", j.rel, err)
			}
			written[i] = tag.RowsAffected()
			rows += written[i]
		}
		return markDone(ctx, tx, j.units, written)
	})
	return rows, err
}

// copyIntoSQL is the binary COPY statement into rel with t's column list.
func copyIntoSQL(rel string, t tableDef, freeze bool) string {
	opts := "FORMAT binary"
	if freeze {
		opts += ", FREEZE"
	}
	return fmt.Sprintf("COPY %s (%s) FROM STDIN (%s)", rel, strings.Join(t.columnNames(), ", "), opts)
}
