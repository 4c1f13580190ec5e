package quickstart

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// AddFlags declares the flags of 'pgoltp quickstart' that fill o (all but --pg).
func (o *Options) AddFlags(f *pflag.FlagSet) {
	f.IntVar(&o.Warehouses, "warehouses", 2, "TPC-C warehouses to load")
	f.DurationVar(&o.Duration, "duration", time.Minute, "measured time of the run")
	f.StringVar(&o.Path, "path", tpcc.PathClient, "client (prepared statements) or server (PL/pgSQL functions)")
}
