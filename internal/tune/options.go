package tune

import (
	"github.com/pgoltp/pgoltp/internal/field"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/settings"
)

// Kind is a workload the search can drive, as the command gives it from the
// registry: its defaults and what its flags call it.
type Kind struct {
	Name      string // the registry's kind
	Title     string // "TPC-C"
	Scale     int    // the scale when given none
	Objective string // the objective when given none: its primary figure
	HotRows   bool   // for the advisor's warm start (advise.AdviseInput.HotRows)
}

// Options are the choices of `pgoltp tune` as given on the command line.
type Options struct {
	Kinds       []Kind // the workloads the search may drive, the first its default
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
	// MinEffect (%) and MaxPairs bound every comparison's sequential rule
	// (confirmation, best vs advise, ablation): Session.rule.
	MinEffect float64
	MaxPairs  int
	Ablation  int
	Reload    bool     // load the data again before every measured run
	Layout    bool     // the layout phase after the settings search
	Inject    []string // test only: trial:name=value
	// OS adds the OS dimensions (tune --os); AllowOS is --allow-os, which
	// it needs (with root and a server on this machine).
	OS, AllowOS bool

	inject map[int]map[string]string // Inject, read by Validate
}

// Validate fills the defaults that depend on the workload and checks every
// range: the only place they are checked.
func (o *Options) Validate() error {
	i := slices.IndexFunc(o.Kinds, func(k Kind) bool { return k.Name == o.Workload })
	if i < 0 {
		return field.Bad("Workload", strconv.Quote(o.Workload), "is not a workload the search can drive", o.KindList())
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
		return field.Bad("Scale", strconv.Itoa(o.Scale), "is too small", "1 or more")
	case o.Clients < 1:
		return field.Bad("Clients", strconv.Itoa(o.Clients), "is too few", "1 or more")
	case o.Budget < 1:
		return field.Bad("Budget", strconv.Itoa(o.Budget), "is too few trials", "1 or more")
	case o.Trial < time.Second:
		return field.Bad("Trial", o.Trial.String(), "is too short to measure", "1s or more")
	case o.Objective != ObjectiveTPS && o.Objective != ObjectiveTPMC && o.Objective != ObjectiveP99 && o.Objective != ObjectivePerCPU:
		return field.Bad("Objective", strconv.Quote(o.Objective), "is not an objective", "tps, tpmc, p99 or per-cpu")
	case o.Objective == ObjectiveTPMC && kind.Objective != ObjectiveTPMC:
		return field.Bad("Objective", strconv.Quote(o.Objective), "is a "+o.TPMCTitles()+" figure", "tps with "+kind.Name)
	case o.Format != "" && o.Format != "conf" && o.Format != "sql":
		return field.Bad("Format", strconv.Quote(o.Format), "is not an output format", "conf or sql")
	case o.Design != "separate" && o.Design != "auto":
		return field.Bad("Design", strconv.Quote(o.Design), "is not a design", "separate or auto")
	case o.Confirm < 1:
		return field.Bad("Confirm", strconv.Itoa(o.Confirm), "is too few candidates", "1 or more")
	case o.MinEffect < 0 || o.MinEffect >= 100:
		return field.Bad("MinEffect", strconv.FormatFloat(o.MinEffect, 'g', -1, 64), "is not a percentage of effect", "more than 0 and less than 100 (e.g. 5)")
	case o.MaxPairs < 0 || o.MaxPairs == 1:
		return field.Bad("MaxPairs", strconv.Itoa(o.MaxPairs), "is too few pairs", "2 or more")
	case o.Ablation < 0:
		return field.Bad("Ablation", strconv.Itoa(o.Ablation), "is negative", "0 (all) or more")
	}
	if o.Prewarm == 0 {
		o.Prewarm = max(time.Second, o.Trial/6)
	}
	if o.MinEffect == 0 {
		o.MinEffect = 5
	}
	if o.MaxPairs == 0 {
		o.MaxPairs = 5
	}
	var err error
	o.inject, err = parseInject(o.Inject)
	return err
}

// kind is the Kind Workload names (the zero Kind if none: Validate says so).
func (o *Options) kind() Kind {
	for _, k := range o.Kinds {
		if k.Name == o.Workload {
			return k
		}
	}
	return Kind{}
}

// KindList is the names of Kinds as a list says them: "a, b or c".
func (o *Options) KindList() string {
	names := make([]string, len(o.Kinds))
	for i, k := range o.Kinds {
		names[i] = k.Name
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// TPMCTitles names the workloads tpmC is a figure of: "TPC-C".
func (o *Options) TPMCTitles() string {
	var titles []string
	for _, k := range o.Kinds {
		if k.Objective == ObjectiveTPMC {
			titles = append(titles, k.Title)
		}
	}
	return strings.Join(titles, ", ")
}

// parseInject reads the test-only Inject, TRIAL:name=value each.
func parseInject(list []string) (map[int]map[string]string, error) {
	out := map[int]map[string]string{}
	for _, s := range list {
		n, kv, ok := strings.Cut(s, ":")
		name, value, ok2 := strings.Cut(kv, "=")
		trial, err := strconv.Atoi(n)
		if !ok || !ok2 || err != nil || trial < 1 {
			return nil, field.Bad("Inject", strconv.Quote(s), "is not TRIAL:name=value", "TRIAL:name=value")
		}
		if out[trial] == nil {
			out[trial] = map[string]string{}
		}
		out[trial][name] = value
		if err := settings.CheckApplicable(out[trial]); err != nil {
			return nil, field.Bad("Inject", "", err.Error(), "only catalog settings").Because(err)
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
