package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/group"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/report"
	"github.com/pgoltp/pgoltp/internal/runfile"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// groupFlags are --group, --part and --group-timeout: one process of several
// driving one server together (internal/group).
type groupFlags struct {
	name, part string
	timeout    time.Duration
}

// addGroupFlags adds the group flags; units names what a part drives
// ("warehouses", "branches").
func addGroupFlags(f *pflag.FlagSet, g *groupFlags, units string) {
	f.StringVar(&g.name, "group", "", "run as one part of this named group: all parts register in the results store (--results-dsn across machines), start together and are reported as one run ('pgoltp report NAME')")
	f.StringVar(&g.part, "part", "", "with --group: this process is part k of n (e.g. 2/4) and drives the k-th contiguous range of "+units)
	f.DurationVar(&g.timeout, "group-timeout", group.DefaultTimeout, "with --group: how long to wait for the other parts")
}

// apply hands the flags to the workload's part and the recorder.
func (g *groupFlags) apply(part *workload.Part, ro *recorder.Options) error {
	if g.name == "" && g.part == "" {
		return nil
	}
	if g.name == "" {
		return problem.BadInput("add --group NAME (the same on every part)", "--part %s needs --group", g.part)
	}
	p, err := workload.ParsePart(g.part)
	if g.part == "" {
		err = nil
	}
	if err != nil {
		return problem.BadInput("see --help", "%s", err.Error())
	}
	opts := group.Options{Name: g.name, Part: p, Timeout: g.timeout}
	if err := opts.Validate(); err != nil {
		return problem.BadInput("see --help", "%s", err.Error())
	}
	if g.timeout <= 0 {
		return problem.BadInput("give a positive --group-timeout, e.g. 5m", "--group-timeout %s", g.timeout)
	}
	if ro.NoRecord {
		return problem.BadInput("drop --record=false: a group meets in the results store", "--group needs the run recorded")
	}
	*part, ro.Group = p, opts
	return nil
}

// writeGroupReport writes the report of group ref when ref names one (done
// says so): text (the HTML default has no group page) or --format json.
func writeGroupReport(cmd *cobra.Command, s *store.Store, ref, out, format string) (done bool, err error) {
	v, err := group.Load(cmd.Context(), s, ref)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	render := report.GroupText
	switch format {
	case "json":
		render = report.GroupJSON
	case "csv":
		return true, problem.BadInput("use --format json or text, or report each part's run by its id", "a group has no CSV report")
	}
	if out == "" || out == "-" {
		return true, render(cmd.OutOrStdout(), v)
	}
	if err := runfile.WriteAtomically(out, func(w io.Writer) error { return render(w, v) }); err != nil {
		return true, problem.Wrap(err, "check that the directory of -o is writable", "cannot write %s", out)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Report of group %s (%s): %s\n", v.Name, v.Status, out)
	return true, nil
}

// partValue is --part k/n of 'tpcc load' as a flag value.
type partValue struct{ p *workload.Part }

func (v partValue) String() string { return v.p.String() }
func (v partValue) Type() string   { return "k/n" }
func (v partValue) Set(s string) error {
	p, err := workload.ParsePart(s)
	if err == nil {
		*v.p = p
	}
	return err
}

// addLoadPartFlag adds --part to 'tpcc load'.
func addLoadPartFlag(f *pflag.FlagSet, p *workload.Part) {
	f.Var(partValue{p}, "part", "load only part k of n (e.g. 2/4): its own range of warehouses, while n processes load one database together; every part needs the same --warehouses and --seed, part 1 also loads item, warehouse and district, and the last part to finish builds the indexes and marks the load complete")
}
