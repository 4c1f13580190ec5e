package tuner

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// Kind is a workload the search can drive, as the command gives it from the
// registry: its defaults and what its flags call it.
type Kind struct {
	Name      string // --workload NAME
	Title     string // "TPC-C"
	ScaleFlag string // the flag of its scale: "scale", "warehouses"
	Scale     int    // the scale when given none
	Objective string // the objective when given none: its primary figure
}

// Options are the choices of `pgoltp tune` as given on the command line.
type Options struct {
	Kinds       []Kind // the workloads --workload takes, the first its default
	Workload    string // one of Kinds
	Scale       int    // the workload's scale (TPC-B scale, TPC-C warehouses)
	Clients     int
	Budget      int
	Trial       time.Duration
	Prewarm     time.Duration
	Objective   string
	MaxP99      time.Duration
	AllowUnsafe bool
	Apply       bool
	Force       bool   // --apply and --format take a best not shown better than the start
	Design      string // separate or auto (switchback where the settings allow)
	Format      string // "", conf or sql
	Resume      string // "", "latest" or a search id
	Seed        int64
	Confirm     int
	Ablation    int
	Reload      bool     // load the data again before every measured run
	Layout      bool     // the layout phase after the settings search
	Inject      []string // test only: trial:name=value

	inject map[int]map[string]string // Inject, read by Validate
}

// Validate fills the defaults that depend on the workload and checks every
// range: the only place they are checked.
func (o *Options) Validate() error {
	i := slices.IndexFunc(o.Kinds, func(k Kind) bool { return k.Name == o.Workload })
	if i < 0 {
		return problem.BadInput("use --workload "+o.kindList(), "tune cannot drive workload %q", o.Workload)
	}
	kind := o.Kinds[i]
	if o.Scale == 0 {
		o.Scale = kind.Scale
	}
	if o.Clients == 0 {
		o.Clients = 4
	}
	if o.Objective == "" {
		o.Objective = kind.Objective
	}
	if o.Design == "" {
		o.Design = "separate"
	}
	switch {
	case o.Scale < 1:
		return problem.BadInput("use --scale/--warehouses 1 or more", "scale %d", o.Scale)
	case o.Clients < 1:
		return problem.BadInput("use --clients 1 or more", "--clients %d", o.Clients)
	case o.Budget < 1:
		return problem.BadInput("use --budget 1 or more", "--budget %d", o.Budget)
	case o.Trial < time.Second:
		return problem.BadInput("use --trial 1s or more", "--trial %s is too short to measure", o.Trial)
	case o.Objective != ObjectiveTPS && o.Objective != ObjectiveTPMC && o.Objective != ObjectiveP99 && o.Objective != ObjectivePerCPU:
		return problem.BadInput("use --objective tps, tpmc, p99 or per-cpu", "unknown objective %q", o.Objective)
	case o.Objective == ObjectiveTPMC && kind.Objective != ObjectiveTPMC:
		return problem.BadInput("use --objective tps with "+kind.Name, "tpmC is a %s figure", o.tpmcTitles())
	case o.Format != "" && o.Format != "conf" && o.Format != "sql":
		return problem.BadInput("use --format conf or sql", "unknown format %q", o.Format)
	case o.Design != "separate" && o.Design != "auto":
		return problem.BadInput("use --design separate or auto", "unknown design %q", o.Design)
	case o.Confirm < 1:
		return problem.BadInput("use --confirm 1 or more", "--confirm %d", o.Confirm)
	case o.Ablation < 0:
		return problem.BadInput("use --ablation 0 (all) or more", "--ablation %d", o.Ablation)
	}
	if o.Prewarm == 0 {
		o.Prewarm = max(time.Second, o.Trial/6)
	}
	var err error
	o.inject, err = parseInject(o.Inject)
	return err
}

// parseInject reads the test-only --test-inject TRIAL:name=value flags.
func parseInject(list []string) (map[int]map[string]string, error) {
	out := map[int]map[string]string{}
	for _, s := range list {
		n, kv, ok := strings.Cut(s, ":")
		name, value, ok2 := strings.Cut(kv, "=")
		trial, err := strconv.Atoi(n)
		if !ok || !ok2 || err != nil || trial < 1 {
			return nil, problem.BadInput("use --test-inject TRIAL:name=value", "bad --test-inject %q", s)
		}
		if out[trial] == nil {
			out[trial] = map[string]string{}
		}
		out[trial][name] = value
		if err := settings.CheckApplicable(out[trial]); err != nil {
			return nil, problem.BadInput("inject only catalog settings", "%v", err)
		}
	}
	return out, nil
}

// Write prints the result as text, followed by conf or sql lines when
// format asks for them: only a header saying why when the best was not
// shown better than the start, unless force (the verdict then refuses).
func (r *Result) Write(w io.Writer, format string, force bool) error {
	if err := r.WriteText(w); err != nil {
		return err
	}
	switch format {
	case "conf":
		return r.WriteConf(w, force)
	case "sql":
		return r.WriteSQL(w, force)
	}
	return nil
}
