package tpcb

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/workload"
)

// MaxScale is the largest scale the pgbench tables can hold: tid is an int4
// column at every scale (from scale 20000 on, pgbench makes only aid bigint).
// pgbench accepts any int, and its teller ids overflow past this one.
const MaxScale = math.MaxInt32 / TellersPerScale

// bytesPerScale is what one unit of scale takes on disk with its indexes at
// fillfactor 100: 15.7 MB, measured from loads at scale 1 and 5 (PostgreSQL
// 16, pg_database_size before and after), rounded up.
const bytesPerScale = 16_000_000

// EstimatedBytes is about what the load takes on the server's disk. A lower
// fillfactor leaves room in each page of the tables, so they grow by 100/F.
func (o LoadOptions) EstimatedBytes() int64 {
	ff := int64(o.Fillfactor)
	if ff == 0 {
		ff = 100
	}
	return int64(o.Scale) * bytesPerScale * 100 / ff
}

// replacedSQL sums the pgbench tables (partitions, indexes and TOAST with
// them) that the load's first step drops.
const replacedSQL = `select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint from pg_class c
	where c.relkind = 'r' and c.relname ~ '^pgbench_(accounts|branches|tellers|history)(_[0-9]+)?$'
	and pg_table_is_visible(c.oid)`

// checkRoom refuses a load that would not fit on the server's disk, or
// notes its size in the log when the disk cannot be seen.
func checkRoom(ctx context.Context, conn *pgx.Conn, o LoadOptions) error {
	var replaced int64
	if o.FreeDisk != nil {
		if err := conn.QueryRow(ctx, replacedSQL).Scan(&replaced); err != nil {
			return fmt.Errorf("reading the size of the pgbench tables: %w", err)
		}
	}
	return workload.CheckRoom(o.Description(), o.EstimatedBytes(), replaced, o.FreeDisk, "load a smaller --scale", o.Log)
}

// Description names the load in the disk check's messages.
func (o LoadOptions) Description() string { return "a TPC-B load of scale " + strconv.Itoa(o.Scale) }
