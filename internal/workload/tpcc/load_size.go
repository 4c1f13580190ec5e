package tpcc

import (
	"context"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/workload"
)

// MaxWarehouses is the most warehouses a load may have: W_ID is an int4
// column, and clause 1.3.1 asks the ids to have room for 2*W unique values.
const MaxWarehouses = math.MaxInt32 / 2

// BytesPerWarehouse is what one warehouse takes on disk with its indexes:
// 70 to 100 MB (/work/shared/TPCC.md, the schema section); the upper figure,
// so that a load that starts has room to finish.
const BytesPerWarehouse = 100_000_000

// EstimatedBytes is about what the load adds to the server's disk: its own
// warehouses (a part's range for --part), in every schema it loads.
func (o LoadOptions) EstimatedBytes() int64 {
	w := o.Warehouses
	if !o.Part.Whole() {
		if _, count, err := o.Part.Range(o.Warehouses); err == nil {
			w = count
		}
	}
	return int64(w) * int64(max(1, len(o.Schemas))) * BytesPerWarehouse
}

// replacedSQL sums the tables (partitions, indexes and TOAST with them) of
// the schemas a load drops and refills.
const replacedSQL = `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind = 'r' AND n.nspname = ANY($1)`

// checkRoom refuses a load (opts normalized) that would not fit on the
// server's disk, or notes its size in Progress when the disk cannot be seen.
// A part's load replaces nothing: the other parts fill the same schema.
func checkRoom(ctx context.Context, dsn string, opts LoadOptions) error {
	if opts.roomChecked {
		return nil
	}
	var replaced int64
	if opts.FreeDisk != nil && opts.Part.Whole() {
		schemas := opts.Schemas
		if len(schemas) == 0 {
			schemas = []string{opts.Schema}
		}
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return fmt.Errorf("connecting: %w", err)
		}
		defer conn.Close(context.WithoutCancel(ctx))
		if err := conn.QueryRow(ctx, replacedSQL, schemas).Scan(&replaced); err != nil {
			return fmt.Errorf("reading the size of the loaded tables: %w", err)
		}
	}
	return workload.CheckRoom(opts.Description(), opts.EstimatedBytes(), replaced, opts.FreeDisk, "load fewer --warehouses", opts.Progress)
}

// Description names the load in the disk check's messages.
func (o LoadOptions) Description() string {
	what := fmt.Sprintf("a TPC-C load of %d warehouses", o.Warehouses)
	if !o.Part.Whole() {
		what = fmt.Sprintf("part %s of a TPC-C load of %d warehouses", o.Part, o.Warehouses)
	}
	if n := len(o.Schemas); n > 1 {
		what += fmt.Sprintf(" in each of %d schemas", n)
	}
	return what
}
