package main

import (
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/tune"
	"github.com/pgoltp/pgoltp/internal/workload/registry"
)

// addTuneFlags declares the flags of 'pgoltp tune' that fill o; o.Kinds are
// the workloads --workload takes (the first its default), each with its
// scale flag (the registry's).
func addTuneFlags(f *pflag.FlagSet, o *tune.Options) {
	f.StringVar(&o.Workload, "workload", o.Kinds[0].Name, o.KindList())
	for _, e := range registry.For(registry.Search) {
		if f.Lookup(e.ScaleFlag) == nil {
			f.IntVar(&o.Scale, e.ScaleFlag, 0, fmt.Sprintf("%s %s (default %d)", e.Title, e.ScaleFlag, e.Scale))
		}
	}
	f.IntVar(&o.Clients, "clients", 0, "concurrent connections (default 4)")
	f.IntVar(&o.Clients, "conns", 0, "same as --clients")
	f.IntVar(&o.Budget, "budget", 25, "number of trials")
	f.DurationVar(&o.Trial, "trial", 60*time.Second, "measured run per trial")
	f.DurationVar(&o.Prewarm, "prewarm", 0, "unmeasured run before every measured one (default: a sixth of --trial, at least 1s)")
	f.StringVar(&o.Objective, "objective", "", fmt.Sprintf("tps, tpmc (%s), p99 or per-cpu (transactions per CPU-second of the server and the driver; the server must run on this host) (default: %s)", o.TPMCTitles(), defaultObjectives(o.Kinds)))
	f.DurationVar(&o.MaxP99, "max-p99", 0, "penalise configurations whose p99 latency exceeds this")
	f.BoolVar(&o.AllowUnsafe, "allow-unsafe", false, "also search settings that can lose or corrupt data on a crash (labelled in every output)")
	f.BoolVar(&o.Apply, "apply", false, "keep the result on the server instead of restoring the original settings")
	f.BoolVar(&o.Force, "force", false, "let --apply and --format take a best that was not shown better than the start (by default the result is then the starting settings)")
	f.StringVar(&o.Design, "design", "separate", "how two configurations are compared: separate (pairs of runs) or auto (one switchback run alternating them when they differ only in settings that take effect on reload within seconds)")
	f.StringVar(&o.Format, "format", "", "also print the result as conf (postgresql.conf lines) or sql (ALTER SYSTEM)")
	f.StringVar(&o.Resume, "resume", "", "continue a stored search: --resume (the latest) or --resume=ID")
	f.Lookup("resume").NoOptDefVal = "latest"
	f.Int64Var(&o.Seed, "seed", 1, "random seed of the search")
	f.IntVar(&o.Confirm, "confirm", 3, "top candidates re-run against the baseline before one is declared best")
	f.Float64Var(&o.MinEffect, "min-effect", 5, "a comparison (confirmation, best vs advise, ablation) adds pairs until its interval excludes zero or lies within ±this % (it says first how many pairs it expects)")
	f.IntVar(&o.MaxPairs, "max-pairs", 5, "the most pairs of runs one comparison may take")
	f.IntVar(&o.Ablation, "ablation", 0, "ablate at most this many settings, largest changes first (0: all)")
	f.BoolVar(&o.Reload, "reload", true, "load the data again before every measured run, so that each measures the same database (--reload=false: faster, but runs that write grow it as the search goes)")
	f.BoolVar(&o.Layout, "layout", false, "then search the fillfactor of the tables updated in place (rewrites them before every run)")
	f.BoolVar(&o.OS, "os", false, "also search OS settings machine-wide (read-ahead, dirty bytes, transparent huge pages, I/O scheduler, huge pages: those this machine lets pgoltp write); root and --allow-os only, restored at the end")
	f.BoolVar(&o.AllowOS, "allow-os", false, "let --os change kernel and disk settings machine-wide (root only; restored at the end)")
	f.StringArrayVar(&o.Inject, "test-inject", nil, "testing only: TRIAL:name=value overrides a trial's setting")
	_ = f.MarkHidden("test-inject")
}

// defaultObjectives says each workload's default objective: "tps for tpcb, ...".
func defaultObjectives(kinds []tune.Kind) string {
	var each []string
	for _, k := range kinds {
		each = append(each, k.Objective+" for "+k.Name)
	}
	return strings.Join(each, ", ")
}

// tuneFlags names the flag of each tune.Options field, for its field
// errors; Scale is named by the workload's entry (scaleFlag).
var tuneFlags = map[string]string{
	"Workload": "--workload", "Clients": "--clients", "Budget": "--budget", "Trial": "--trial",
	"Prewarm": "--prewarm", "Objective": "--objective", "MaxP99": "--max-p99", "AllowUnsafe": "--allow-unsafe",
	"Apply": "--apply", "Format": "--format", "Resume": "--resume", "Seed": "--seed", "Confirm": "--confirm", "MinEffect": "--min-effect", "MaxPairs": "--max-pairs",
	"Ablation": "--ablation", "Reload": "--reload", "Layout": "--layout", "Inject": "--test-inject",
	"OS": "--os", "AllowOS": "--allow-os",
}

// tuneFlagNames is tuneFlags with Scale as the flag of workload's scale
// ("--scale", "--warehouses").
func tuneFlagNames(workload string) map[string]string {
	names := maps.Clone(tuneFlags)
	names["Scale"] = "--scale/--warehouses"
	if e, err := registry.Lookup(workload); err == nil {
		names["Scale"] = "--" + e.ScaleFlag
	}
	return names
}
