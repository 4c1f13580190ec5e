package tuner

import (
	"time"

	"github.com/spf13/pflag"
)

// AddFlags declares the flags of 'pgoltp tune' that fill o.
func (o *Options) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&o.Workload, "workload", "tpcb", "tpcc or tpcb")
	f.IntVar(&o.Scale, "scale", 0, "TPC-B scale (default 10)")
	f.IntVar(&o.Scale, "warehouses", 0, "TPC-C warehouses (default 2)")
	f.IntVar(&o.Clients, "clients", 0, "concurrent connections (default 4)")
	f.IntVar(&o.Clients, "conns", 0, "same as --clients")
	f.IntVar(&o.Budget, "budget", 25, "number of trials")
	f.DurationVar(&o.Trial, "trial", 60*time.Second, "measured run per trial")
	f.DurationVar(&o.Prewarm, "prewarm", 0, "unmeasured run before every measured one (default: a sixth of --trial, at least 1s)")
	f.StringVar(&o.Objective, "objective", "", "tps, tpmc (TPC-C) or p99 (default: tpmc for tpcc, tps for tpcb)")
	f.DurationVar(&o.MaxP99, "max-p99", 0, "penalise configurations whose p99 latency exceeds this")
	f.BoolVar(&o.AllowUnsafe, "allow-unsafe", false, "also search settings that can lose or corrupt data on a crash (labelled in every output)")
	f.BoolVar(&o.Apply, "apply", false, "keep the result on the server instead of restoring the original settings")
	f.StringVar(&o.Format, "format", "", "also print the result as conf (postgresql.conf lines) or sql (ALTER SYSTEM)")
	f.StringVar(&o.Resume, "resume", "", "continue a stored search: --resume (the latest) or --resume=ID")
	f.Lookup("resume").NoOptDefVal = "latest"
	f.Int64Var(&o.Seed, "seed", 1, "random seed of the search")
	f.IntVar(&o.Confirm, "confirm", 3, "top candidates re-run against the baseline before one is declared best")
	f.IntVar(&o.Ablation, "ablation", 0, "ablate at most this many settings, largest changes first (0: all)")
	f.BoolVar(&o.Reload, "reload", true, "load the data again before every measured run, so that each measures the same database (--reload=false: faster, but runs that write grow it as the search goes)")
	f.BoolVar(&o.Layout, "layout", false, "then search the fillfactor of the tables updated in place (rewrites them before every run)")
	f.StringArrayVar(&o.Inject, "test-inject", nil, "testing only: TRIAL:name=value overrides a trial's setting")
	_ = f.MarkHidden("test-inject")
}
