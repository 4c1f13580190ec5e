package tpcc

import (
	"runtime"

	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/workload"
)

// AddFlags declares the flags of 'pgoltp tpcc load' that fill o (all but
// --schemas and --to-files).
func (o *LoadOptions) AddFlags(f *pflag.FlagSet) {
	f.IntVarP(&o.Warehouses, "warehouses", "w", 1, "number of warehouses (about 100 MB each with indexes)")
	f.IntVar(&o.Workers, "workers", runtime.NumCPU(), "parallel loader connections")
	f.Uint64Var(&o.Seed, "seed", 0, "random seed for reproducible data (0: draw one; it is recorded in pgoltp_meta)")
	f.StringVar(&o.Schema, "schema", DefaultSchema, "schema to create the tables in (created if missing)")
	f.IntVar(&o.Partitions, "partitions", 0, "hash-partition the per-warehouse tables by warehouse into N partitions (0: none)")
	f.StringToIntVar(&o.Fillfactor, "fillfactor", nil, "fillfactor per table, e.g. stock=90,customer=90")
	f.BoolVar(&o.ForeignKeys, "foreign-keys", false, "add the foreign keys of clause 1.3 (slower runs)")
	f.BoolVar(&o.Force, "force", false, "drop and reload even if a complete load exists")
	f.Var(workload.PartValue{P: &o.Part}, "part", "load only part k of n (e.g. 2/4): its own range of warehouses, while n processes load one database together; every part needs the same --warehouses and --seed, part 1 also loads item, warehouse and district, and the last part to finish builds the indexes and marks the load complete")
}

// AddFlags declares the flags of 'pgoltp tpcc check' that fill o (all but
// --schemas and --fresh).
func (o *CheckOptions) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&o.Schema, "schema", DefaultSchema, "schema that holds the TPC-C tables")
	f.BoolVar(&o.Quick, "quick", false, "skip the expensive per-customer checks")
	f.IntVar(&o.Workers, "workers", runtime.NumCPU(), "parallel connections (one shared snapshot)")
	f.IntVar(&o.MaxRows, "rows", 5, "violating rows to show per failed check")
	f.StringSliceVar(&o.Only, "only", nil, "run only these checks (comma-separated names)")
}
