package study

import "github.com/spf13/pflag"

// AddFlags declares the flags of 'pgoltp compare-versions' that fill o as
// given (all but --pg, --duration and --output); o.Kinds are the workloads
// --workload takes, the first its default.
func (o *Options) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&o.Workload, "workload", o.Kinds[0], or(o.Kinds))
	f.IntVar(&o.Scale, "scale", 1, "TPC-B scale factor")
	f.IntVar(&o.Warehouses, "warehouses", 1, "TPC-C warehouses")
	f.IntVarP(&o.Clients, "clients", "c", 4, "client connections")
	f.IntVar(&o.Repetitions, "repetitions", 1, "runs per major, interleaved across majors")
	f.StringArrayVar(&o.Sets, "set", nil, "a server setting name=value applied on every major (repeatable)")
}
