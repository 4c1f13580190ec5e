package main

import (
	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/workload/script"
)

// scriptFlags are the script workload's options (--workload script) as
// pgbench spells them: -f, -b, -D, -M, and its -j, -R as --jobs, --rate.
type scriptFlags struct{ o script.Options }

// add declares them on f.
func (s *scriptFlags) add(f *pflag.FlagSet) {
	f.StringArrayVarP(&s.o.Files, "file", "f", nil, "with --workload script: a pgbench script file, FILE[@WEIGHT] (repeat for several; a script is code: \\shell runs commands)")
	f.StringArrayVarP(&s.o.Builtins, "builtin", "b", nil, "with --workload script: a pgbench built-in script, NAME[@WEIGHT] (tpcb-like, simple-update, select-only; neither -f nor -b: tpcb-like)")
	f.StringArrayVarP(&s.o.Defines, "define", "D", nil, "with --workload script: a script variable, NAME=VALUE")
	f.StringVarP(&s.o.Protocol, "protocol", "M", "simple", "with --workload script: simple, extended or prepared")
	f.IntVar(&s.o.Jobs, "jobs", 1, "with --workload script: pgbench's threads (-j)")
	f.Float64Var(&s.o.Rate, "rate", 0, "with --workload script: target transactions per second (-R; 0: as fast as it goes)")
	f.StringVar(&s.o.Init, "init", script.InitPgbench, "with --workload script: how the data is prepared: pgbench (pgbench -i --scale, reloaded as the search reloads) or none (the schema is yours and is never reloaded)")
}

// scriptFlagNames name the script options' fields by their flags.
var scriptFlagNames = map[string]string{
	"Files": "-f/--file", "Builtins": "-b/--builtin", "Defines": "-D/--define", "Protocol": "-M/--protocol",
	"Jobs": "--jobs", "Rate": "--rate", "Init": "--init",
}

// check refuses the flags on a workload other than script, where they
// would be ignored.
func (s *scriptFlags) check(kind string, f *pflag.FlagSet) error {
	if kind == "script" {
		return nil
	}
	for _, name := range []string{"file", "builtin", "define", "protocol", "jobs", "rate", "init"} {
		if f.Changed(name) {
			return problem.BadInput("add --workload script, or drop --"+name, "--%s is an option of --workload script, not of %s", name, kind)
		}
	}
	return nil
}
