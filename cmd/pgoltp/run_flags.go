package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/group"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// recordFlags are a run command's --record and --bloat-every.
type recordFlags struct {
	Record     bool
	BloatEvery time.Duration
}

// add declares --record (with the command's own help) and --bloat-every.
func (r *recordFlags) add(f *pflag.FlagSet, recordHelp string) {
	f.BoolVar(&r.Record, "record", true, recordHelp)
	f.DurationVar(&r.BloatEvery, "bloat-every", 0, "estimate bloat with pgstattuple_approx this often during a recorded run (default 15m for runs planned to last 1h or more, else never; 0 = never)")
}

// apply sets whether o records and how often its collectors estimate bloat,
// for a run planned to last planned (0: unknown); f are the parsed flags.
func (r recordFlags) apply(o *recorder.Options, f *pflag.FlagSet, planned time.Duration) error {
	o.NoRecord = !r.Record
	var err error
	o.Collect.BloatEvery, err = collect.ResolveBloatEvery(f.Changed("bloat-every"), r.BloatEvery, planned)
	return err
}

// groupFlags are --group, --part and --group-timeout of a run command: one
// process of several driving one server together.
type groupFlags struct {
	Name, Part string
	Timeout    time.Duration
}

// add declares the group flags; units names what a part drives
// ("warehouses", "branches").
func (g *groupFlags) add(f *pflag.FlagSet, units string) {
	f.StringVar(&g.Name, "group", "", "run as one part of this named group: all parts register in the results store (--results-dsn across machines), start together and are reported as one run ('pgoltp report NAME')")
	f.StringVar(&g.Part, "part", "", "with --group: this process is part k of n (e.g. 2/4) and drives the k-th contiguous range of "+units)
	f.DurationVar(&g.Timeout, "group-timeout", group.DefaultTimeout, "with --group: how long to wait for the other parts")
}

// options checks the flags and turns them into the workload's part and the
// group's options (a zero Name: no group); recorded says whether the run is
// stored, which a group needs to meet. A bad flag is a bad-input problem.
func (g groupFlags) options(recorded bool) (workload.Part, group.Options, error) {
	if g.Name == "" && g.Part == "" {
		return workload.Part{}, group.Options{}, nil
	}
	if g.Name == "" {
		return workload.Part{}, group.Options{}, problem.BadInput("add --group NAME (the same on every part)", "--part %s needs --group", g.Part)
	}
	p, err := workload.ParsePart(g.Part)
	if g.Part == "" {
		err = nil
	}
	if err != nil {
		return workload.Part{}, group.Options{}, problem.BadInput("see --help", "%s", err.Error())
	}
	opts := group.Options{Name: g.Name, Part: p, Timeout: g.Timeout}
	if err := opts.Validate(); err != nil {
		return workload.Part{}, group.Options{}, problem.BadInput("see --help", "%s", asFlags(err, groupFlagNames).Error())
	}
	if g.Timeout <= 0 {
		return workload.Part{}, group.Options{}, problem.BadInput("give a positive --group-timeout, e.g. 5m", "--group-timeout %s", g.Timeout)
	}
	if !recorded {
		return workload.Part{}, group.Options{}, problem.BadInput("drop --record=false: a group meets in the results store", "--group needs the run recorded")
	}
	return p, opts, nil
}

// joinGroup checks a run command's group flags and, when they name a group,
// sets the workload's part and the recording's group.
func joinGroup(o *recorder.Options, g groupFlags, part *workload.Part) error {
	p, opts, err := g.options(!o.NoRecord)
	if err == nil && opts.Name != "" {
		*part, o.Group = p, opts
	}
	return err
}
