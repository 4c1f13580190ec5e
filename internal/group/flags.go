package group

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Flags are --group, --part and --group-timeout of a run command: one
// process of several driving one server together.
type Flags struct {
	Name, Part string
	Timeout    time.Duration
}

// AddFlags adds the group flags; units names what a part drives
// ("warehouses", "branches").
func (g *Flags) AddFlags(f *pflag.FlagSet, units string) {
	f.StringVar(&g.Name, "group", "", "run as one part of this named group: all parts register in the results store (--results-dsn across machines), start together and are reported as one run ('pgoltp report NAME')")
	f.StringVar(&g.Part, "part", "", "with --group: this process is part k of n (e.g. 2/4) and drives the k-th contiguous range of "+units)
	f.DurationVar(&g.Timeout, "group-timeout", DefaultTimeout, "with --group: how long to wait for the other parts")
}

// Options checks the flags and turns them into the workload's part and the
// group's options (a zero Name: no group); recorded says whether the run is
// stored, which a group needs to meet. A bad flag is a bad-input problem.
func (g Flags) Options(recorded bool) (workload.Part, Options, error) {
	if g.Name == "" && g.Part == "" {
		return workload.Part{}, Options{}, nil
	}
	if g.Name == "" {
		return workload.Part{}, Options{}, problem.BadInput("add --group NAME (the same on every part)", "--part %s needs --group", g.Part)
	}
	p, err := workload.ParsePart(g.Part)
	if g.Part == "" {
		err = nil
	}
	if err != nil {
		return workload.Part{}, Options{}, problem.BadInput("see --help", "%s", err.Error())
	}
	opts := Options{Name: g.Name, Part: p, Timeout: g.Timeout}
	if err := opts.Validate(); err != nil {
		return workload.Part{}, Options{}, problem.BadInput("see --help", "%s", err.Error())
	}
	if g.Timeout <= 0 {
		return workload.Part{}, Options{}, problem.BadInput("give a positive --group-timeout, e.g. 5m", "--group-timeout %s", g.Timeout)
	}
	if !recorded {
		return workload.Part{}, Options{}, problem.BadInput("drop --record=false: a group meets in the results store", "--group needs the run recorded")
	}
	return p, opts, nil
}
