package tuner

import (
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// Options are the choices of `pgoltp tune` as given on the command line.
type Options struct {
	Workload    string // tpcc or tpcb
	Scale       int    // TPC-B scale or TPC-C warehouses
	Clients     int
	Budget      int
	Trial       time.Duration
	Prewarm     time.Duration
	Objective   string
	MaxP99      time.Duration
	AllowUnsafe bool
	Apply       bool
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
	switch o.Workload {
	case "tpcb":
		if o.Scale == 0 {
			o.Scale = 10
		}
	case "tpcc":
		if o.Scale == 0 {
			o.Scale = 2
		}
	default:
		return problem.BadInput("use --workload tpcc or tpcb", "tune cannot drive workload %q", o.Workload)
	}
	if o.Clients == 0 {
		o.Clients = 4
	}
	if o.Objective == "" {
		o.Objective = ObjectiveTPS
		if o.Workload == "tpcc" {
			o.Objective = ObjectiveTPMC
		}
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
	case o.Objective != ObjectiveTPS && o.Objective != ObjectiveTPMC && o.Objective != ObjectiveP99:
		return problem.BadInput("use --objective tps, tpmc or p99", "unknown objective %q", o.Objective)
	case o.Objective == ObjectiveTPMC && o.Workload != "tpcc":
		return problem.BadInput("use --objective tps with tpcb", "tpmC is a TPC-C figure")
	case o.Format != "" && o.Format != "conf" && o.Format != "sql":
		return problem.BadInput("use --format conf or sql", "unknown format %q", o.Format)
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
// format asks for them.
func (r *Result) Write(w io.Writer, format string) error {
	if err := r.WriteText(w); err != nil {
		return err
	}
	switch format {
	case "conf":
		return r.WriteConf(w)
	case "sql":
		return r.WriteSQL(w)
	}
	return nil
}
