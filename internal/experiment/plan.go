package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/pgoltp/pgoltp/internal/ossettings"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/stats"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/ledger"
)

// Plan is an experiment: a baseline and steps, each a set of settings (and
// optionally a data layout), every step measured against the baseline.
//
//	name: checkpoints and WAL
//	workload: {kind: tpcb, scale: 1, clients: 4}
//	duration: 60s        # each measured run
//	repetitions: auto    # A/B pairs per step: a number, or auto (until the verdict is clear)
//	max_repetitions: 6   # auto: at most this many pairs
//	min_effect: 3%       # auto: stop once the interval rules out effects this large
//	prewarm: 10s         # discarded warm-up run before each measured run
//	reload_each_run: false  # reload the data before every run (layout steps always do)
//	baseline:
//	  settings: {max_wal_size: 1GB}
//	steps:
//	  - name: bigger WAL
//	    settings: {max_wal_size: 8GB, checkpoint_timeout: 15min}
//	  - name: fillfactor 90
//	    layout: {fillfactor: 90}
type Plan struct {
	Name     string        `yaml:"name"`
	Workload PlanWorkload  `yaml:"workload"`
	Duration time.Duration `yaml:"duration"`
	// Repetitions is the number of A/B pairs per step, or auto: add pairs
	// until the verdict is clear (see stats.Sequential), from 2 up to
	// MaxRepetitions.
	Repetitions    Repetitions   `yaml:"repetitions"`
	MaxRepetitions int           `yaml:"max_repetitions"`
	MinEffect      Percent       `yaml:"min_effect"` // the smallest effect worth knowing about (auto)
	Prewarm        time.Duration `yaml:"prewarm"`
	Confidence     float64       `yaml:"confidence"`
	// ReloadEachRun reloads the data before every measured run, not only for
	// steps that change the layout: for workloads whose data drift (growth,
	// bloat) would otherwise favour whichever arm runs first.
	ReloadEachRun bool   `yaml:"reload_each_run"`
	Baseline      Step   `yaml:"baseline"`
	Steps         []Step `yaml:"steps"`
	// Objective is what a step's verdict judges: tps (throughput, the
	// default) or per-cpu (transactions per CPU-second of the server and
	// the driver; the server must run on this host). Issue 29.3.
	Objective string `yaml:"objective"`
	// Design is how steps are measured: separate (pairs of runs, the
	// default) or auto (a switchback run for a step whose settings all take
	// effect on reload within seconds, settings.Switchable; separate runs
	// otherwise). Block and Settle shape the switchback run (none: fitted to
	// the step's time, switchback.Fit). Issue 29.1.
	Design string        `yaml:"design"`
	Block  time.Duration `yaml:"block"`
	Settle time.Duration `yaml:"settle"`
	// Versions makes the plan a version study instead (versions: [10, 15,
	// 18]): the workload with the baseline's settings on each major, as
	// 'pgoltp compare-versions' runs it; repetitions are runs per major.
	Versions []int `yaml:"versions"`
	// Failover makes the plan a series of failover audits instead
	// (plan_failover.go); duration is each audit's time before the kill.
	Failover *FailoverPlan `yaml:"failover"`
	// Builds makes the plan a build study (builds: [default, o3-native,
	// clang]): as versions:, one cluster per build of 'pgoltp build' (all of
	// one major), the same data, interleaved (issue 28).
	Builds []string `yaml:"builds"`
}

// Repetitions is a plan's 'repetitions:': a number of pairs, or auto.
type Repetitions struct {
	Pairs int  // fixed number of pairs; 0 with Auto
	Auto  bool // add pairs until the verdict is clear
}

// UnmarshalYAML implements yaml.Unmarshaler.
func (r *Repetitions) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && strings.EqualFold(strings.TrimSpace(n.Value), "auto") {
		*r = Repetitions{Auto: true}
		return nil
	}
	var pairs int
	if err := n.Decode(&pairs); err != nil {
		return fmt.Errorf("line %d: repetitions must be a number of pairs or auto, not %q", n.Line, n.Value)
	}
	if pairs == 0 {
		// Here, because Check cannot tell a written 0 from a missing key.
		return fmt.Errorf("line %d: repetitions 0: need 2 to 100, or auto", n.Line)
	}
	*r = Repetitions{Pairs: pairs}
	return nil
}

// String is "auto" or the number of pairs.
func (r Repetitions) String() string {
	if r.Auto {
		return "auto"
	}
	return strconv.Itoa(r.Pairs)
}

// Percent is a percentage written as "3%" or 3.
type Percent float64

// UnmarshalYAML implements yaml.Unmarshaler.
func (p *Percent) UnmarshalYAML(n *yaml.Node) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(n.Value), "%")), 64)
	if n.Kind != yaml.ScalarNode || err != nil {
		return fmt.Errorf("line %d: %q is not a percentage (write e.g. 3%%)", n.Line, n.Value)
	}
	if v == 0 {
		// Here, because Check cannot tell a written 0 from a missing key.
		return fmt.Errorf("line %d: min_effect 0%%: must be above 0%%, e.g. 3%%", n.Line)
	}
	*p = Percent(v)
	return nil
}

// Sequential is the plan's stop rule for repetitions: auto.
func (p *Plan) Sequential() stats.Sequential {
	return stats.Sequential{MinPairs: minAutoPairs, MaxPairs: p.MaxRepetitions, MinEffect: float64(p.MinEffect), Confidence: p.Confidence}
}

// minAutoPairs is where repetitions: auto first looks at the interval: one
// pair has no between-pair spread at all, and every extra look costs
// interval width (see stats.Sequential).
const minAutoPairs = 2

// Level is the confidence level of each step's interval: the plan's, or
// with repetitions: auto the level of each look, corrected for looking
// after every pair.
func (p *Plan) Level() float64 {
	if p.Repetitions.Auto {
		return p.Sequential().LookLevel()
	}
	return p.Confidence
}

// PlanWorkload names the workload and its size.
type PlanWorkload struct {
	Kind    string `yaml:"kind"`    // a registered workload (internal/workload/registry): ledger, tpcb, tpcc, script
	Scale   int    `yaml:"scale"`   // tpcb scale, tpcc warehouses, ledger accounts (×1000)
	Clients int    `yaml:"clients"` // connections (tpcc: terminals)
	// The keys of kind script (pgbench scripts), as pgbench's options:
	// files (-f path[@weight]), builtins (-b name[@weight]), defines (-D,
	// a map), protocol (-M), jobs (-j), rate (-R), and init (pgbench: the
	// data is pgbench -i's; none: the schema is the user's).
	Files    []string          `yaml:"files"`
	Builtins []string          `yaml:"builtins"`
	Defines  map[string]Scalar `yaml:"defines"`
	Protocol string            `yaml:"protocol"`
	Jobs     int               `yaml:"jobs"`
	Rate     float64           `yaml:"rate"`
	Init     string            `yaml:"init"`
}

// ScriptKind is the kind whose keys are files, builtins, defines, protocol,
// jobs, rate and init.
const ScriptKind = "script"

// DefineList is defines as -D's name=value, in name order.
func (w PlanWorkload) DefineList() []string {
	names := make([]string, 0, len(w.Defines))
	for k := range w.Defines {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]string, len(names))
	for i, k := range names {
		out[i] = k + "=" + string(w.Defines[k])
	}
	return out
}

// checkScriptKeys refuses a script's keys on another kind of workload: they
// would be ignored.
func (w PlanWorkload) checkScriptKeys() error {
	if w.Kind == ScriptKind {
		return nil
	}
	set := map[string]bool{"files": len(w.Files) > 0, "builtins": len(w.Builtins) > 0, "defines": len(w.Defines) > 0,
		"protocol": w.Protocol != "", "jobs": w.Jobs != 0, "rate": w.Rate != 0, "init": w.Init != ""}
	for _, k := range []string{"files", "builtins", "defines", "protocol", "jobs", "rate", "init"} {
		if set[k] {
			return fmt.Errorf("workload.%s is a key of kind %s, not of %s: set kind: %s or drop it", k, ScriptKind, w.Kind, ScriptKind)
		}
	}
	return nil
}

// Step is one set of settings and layout options.
type Step struct {
	Name     string            `yaml:"name"`
	Settings map[string]Scalar `yaml:"settings"`
	Layout   map[string]Scalar `yaml:"layout"`
	// OS are machine-wide kernel and disk settings (internal/ossettings), issue 28.
	OS map[string]string `yaml:"os"`
	// Via is the step's data path: direct (the default) or pooler
	// (plan_via.go), issue 31.
	Via string `yaml:"via"`
}

// Scalar is a YAML scalar kept exactly as written: "off" stays "off" and
// "0.90" stays "0.90", never turned into a bool or a float by the decoder.
type Scalar string

// UnmarshalYAML implements yaml.Unmarshaler.
func (s *Scalar) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: a setting's value must be a single value, not a list or a map", n.Line)
	}
	*s = Scalar(n.Value)
	return nil
}

// Values returns the settings as name → value with names lower-cased.
func (s Step) Values() map[string]string { return flatten(s.Settings) }

// LayoutValues returns the layout options as name → value.
func (s Step) LayoutValues() workload.Layout { return workload.Layout(flatten(s.Layout)) }

func flatten(m map[string]Scalar) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[strings.ToLower(strings.TrimSpace(k))] = string(v)
	}
	return out
}

// ExamplePlan is a commented plan to start from ('pgoltp experiment --example').
const ExamplePlan = `# pgoltp experiment plan: each step is measured against the baseline,
# in interleaved pairs of runs (baseline, step, baseline, step, ...).
name: checkpoints and commit path
workload:
  kind: tpcb        # ledger, tpcb, tpcc or script (pgbench scripts: files: [my.sql@5], builtins: [select-only@1],
                    # defines: {hot: 1000}, protocol, jobs, rate, init: pgbench or none; see the README)
  scale: 1          # tpcb scale, tpcc warehouses, ledger accounts ×10000
  clients: 4        # connections
duration: 60s       # each measured run
repetitions: auto   # pairs per step: auto adds pairs until the verdict is clear, or a number
max_repetitions: 6  # auto: at most this many pairs per step
min_effect: 3%      # auto: stop once the interval rules out effects this large
prewarm: 10s        # a discarded warm-up run before each measured run
confidence: 0.95
reload_each_run: false   # steps with a layout reload the data before every run anyway
objective: tps      # what the verdict judges: tps, or per-cpu (transactions per CPU-second of server and driver)
design: separate    # or auto: one switchback run for a step whose settings all take effect on reload
baseline:
  settings: {checkpoint_timeout: 5min, max_wal_size: 1GB}
steps:
  - name: spaced checkpoints
    settings: {checkpoint_timeout: 15min, max_wal_size: 8GB}
  - name: group commit
    settings: {commit_delay: 200, commit_siblings: 5}
  - name: fillfactor 90
    layout: {fillfactor: 90}
# A step with via: pooler runs its workload through the lab's pgbouncer
# ('pgoltp cluster up --pooler pgbouncer'), the baseline straight to PostgreSQL.
# Settings that can lose or corrupt data on a crash (synchronous_commit: 'off',
# fsync: 'off', full_page_writes: 'off') need --allow-unsafe and are labelled
# in every output.
`

// ParsePlan reads and checks a plan. Unknown keys are errors (a typo must not
// silently drop a setting); every error is one line naming the problem.
func ParsePlan(r io.Reader) (*Plan, error) {
	return parsePlan(r, nil)
}

// parsePlan is ParsePlan with the steps given from elsewhere when steps is
// not nil ('experiment --from-doctor'): the file is then a header (workload,
// duration, baseline) and any steps it has are replaced.
func parsePlan(r io.Reader, steps []Step) (*Plan, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("the plan is empty")
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	p := &Plan{}
	if err := dec.Decode(p); err != nil {
		return nil, fmt.Errorf("not a valid plan: %s", problem.OneLine(err.Error()))
	}
	if steps != nil {
		p.Steps = steps
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	return p, nil
}

// Check validates the plan's shape and fills in defaults. Settings are
// validated later against the server (Experiment.validate), which knows the
// version and the real ranges.
func (p *Plan) Check() error {
	if p.Workload.Kind == "" {
		p.Workload.Kind = ledger.Ledger{}.Kind()
	}
	if p.Workload.Scale < 0 || p.Workload.Clients < 0 {
		return errors.New("workload scale and clients cannot be negative")
	}
	if err := p.Workload.checkScriptKeys(); err != nil {
		return err
	}
	if p.Workload.Scale == 0 {
		p.Workload.Scale = 1
	}
	if p.Workload.Clients == 0 {
		p.Workload.Clients = 4
	}
	if p.Duration == 0 {
		return errors.New("duration is missing (each measured run, e.g. duration: 60s)")
	}
	if p.Duration < time.Second {
		return fmt.Errorf("duration %s is too short: at least 1s, so that per-second stability can be measured", p.Duration)
	}
	if p.Prewarm < 0 {
		return errors.New("prewarm cannot be negative")
	}
	if p.Failover != nil {
		return p.checkFailover()
	}
	if len(p.Versions) > 0 || len(p.Builds) > 0 {
		return p.checkVersions()
	}
	if err := p.checkRepetitions(); err != nil {
		return err
	}
	if err := p.checkObjective(); err != nil {
		return err
	}
	if p.Confidence == 0 {
		p.Confidence = 0.95
	}
	if !(p.Confidence >= 0.5 && p.Confidence < 1) { // also NaN (.nan), which compares false
		return fmt.Errorf("confidence %g: must be at least 0.5 and below 1, e.g. 0.95", p.Confidence)
	}
	if len(p.Steps) == 0 {
		return errors.New("the plan has no steps: add at least one under steps:")
	}
	seen := map[string]bool{}
	for i := range p.Steps {
		s := &p.Steps[i]
		if s.Name == "" {
			s.Name = fmt.Sprintf("step %d", i+1)
		}
		if seen[s.Name] {
			return fmt.Errorf("two steps are named %q", s.Name)
		}
		seen[s.Name] = true
		if err := checkVia(s, false); err != nil {
			return fmt.Errorf("step %q: %v", s.Name, err)
		}
		if len(s.Settings) == 0 && len(s.Layout) == 0 && len(s.OS) == 0 && s.Via == ViaDirect {
			return fmt.Errorf("step %q changes nothing: give it settings, a layout, os: or via: pooler", s.Name)
		}
		if err := checkSettings(s); err != nil {
			return fmt.Errorf("step %q: %v", s.Name, err)
		}
	}
	if err := checkVia(&p.Baseline, true); err != nil {
		return fmt.Errorf("the baseline: %v", err)
	}
	if err := checkSettings(&p.Baseline); err != nil {
		return fmt.Errorf("the baseline: %v", err)
	}
	return p.checkInjected()
}

// checkSettings checks a step's settings and its os: (issue 28).
func checkSettings(s *Step) error {
	if err := prepareOS(s); err != nil {
		return err
	}
	return settings.CheckApplicable(s.Values())
}

// prepareOS checks a step's os: block and names its keys as
// internal/ossettings does; hugepages: auto brings the huge_pages=on it
// needs (issue 28).
func prepareOS(s *Step) error {
	v, err := ossettings.Parse(s.OS)
	if err != nil || len(v) == 0 {
		return err
	}
	s.OS = v
	if _, set := s.Values()["huge_pages"]; v[ossettings.Hugepages] != "" && !set {
		if s.Settings == nil {
			s.Settings = map[string]Scalar{}
		}
		s.Settings["huge_pages"] = "on"
	}
	return nil
}

// checkRepetitions defaults repetitions to auto and checks its bounds.
func (p *Plan) checkRepetitions() error {
	if p.Repetitions == (Repetitions{}) {
		p.Repetitions.Auto = true
	}
	if p.Repetitions.Auto {
		if p.MaxRepetitions == 0 {
			p.MaxRepetitions = 6
		}
		if p.MaxRepetitions < minAutoPairs || p.MaxRepetitions > 100 {
			return fmt.Errorf("max_repetitions %d: need %d to 100", p.MaxRepetitions, minAutoPairs)
		}
		if p.MinEffect == 0 {
			p.MinEffect = 3
		}
		if !(p.MinEffect > 0 && p.MinEffect < 100) { // also NaN, which compares false
			return fmt.Errorf("min_effect %g%%: must be above 0%% and below 100%%, e.g. 3%%", float64(p.MinEffect))
		}
	} else {
		if p.Repetitions.Pairs < 2 || p.Repetitions.Pairs > 100 {
			return fmt.Errorf("repetitions %d: need 2 to 100, or auto (a confidence interval needs at least two runs per side)", p.Repetitions.Pairs)
		}
		if p.MaxRepetitions != 0 || p.MinEffect != 0 {
			return fmt.Errorf("max_repetitions and min_effect only apply to repetitions: auto (this plan fixes %d)", p.Repetitions.Pairs)
		}
	}
	return nil
}

// checkObjective defaults the objective to tps and refuses an unknown one.
func (p *Plan) checkObjective() error {
	switch p.Objective {
	case "":
		p.Objective = ObjectiveTPS
	case ObjectiveTPS, ObjectivePerCPU:
	default:
		return fmt.Errorf("objective %q: use tps or per-cpu", p.Objective)
	}
	return p.checkDesign()
}

// checkVersions validates a version study: two or more majors, the
// baseline's settings, no steps. Which workloads a study can run is the
// registry's to say (the command checks it).
func (p *Plan) checkVersions() error {
	if err := p.checkBuilds(); err != nil {
		return err
	}
	if len(p.Builds) > 0 {
		return p.checkStudy("builds", "builds")
	}
	seen := map[int]bool{}
	for _, m := range p.Versions {
		if m < settings.OldestMajor || m > settings.NewestMajor {
			return fmt.Errorf("versions: PostgreSQL %d is not supported (%d to %d)", m, settings.OldestMajor, settings.NewestMajor)
		}
		if seen[m] {
			return fmt.Errorf("versions: %d is listed twice", m)
		}
		seen[m] = true
	}
	if len(p.Versions) < 2 {
		return errors.New("versions: list at least two majors to compare, e.g. versions: [10, 15]")
	}
	return p.checkStudy("versions", "majors")
}

// checkBuilds checks a builds: list's shape (which builds the cache holds
// is the command's to check): two or more distinct names, not with
// versions:.
func (p *Plan) checkBuilds() error {
	if len(p.Builds) == 0 {
		return nil
	}
	if len(p.Versions) > 0 {
		return errors.New("builds: give versions: or builds:, not both (builds are of one major)")
	}
	for i, b := range p.Builds {
		if strings.TrimSpace(b) == "" {
			return errors.New("builds: a name is empty; list builds of 'pgoltp build --list'")
		}
		if slices.Contains(p.Builds[:i], b) {
			return fmt.Errorf("builds: %s is listed twice", b)
		}
	}
	if len(p.Builds) < 2 {
		return errors.New("builds: list at least two builds to compare, e.g. builds: [default, o3-native]")
	}
	return nil
}

// checkStudy checks what a versions or builds plan shares: no steps, the
// baseline's settings, its repetitions (runs per arm).
func (p *Plan) checkStudy(key, arms string) error {
	if len(p.Steps) > 0 || len(p.Baseline.Layout) > 0 || len(p.Baseline.OS) > 0 {
		return fmt.Errorf("%s: the %s are the steps; leave out steps, layout and os, and put settings under baseline", key, arms)
	}
	if err := settings.CheckApplicable(p.Baseline.Values()); err != nil {
		return fmt.Errorf("the baseline: %v", err)
	}
	switch {
	case p.Repetitions.Auto || p.Repetitions == (Repetitions{}):
		p.Repetitions = Repetitions{Pairs: 2}
	case p.Repetitions.Pairs < 1 || p.Repetitions.Pairs > 100:
		return fmt.Errorf("repetitions %d: runs per %s, 1 to 100", p.Repetitions.Pairs, strings.TrimSuffix(arms, "s"))
	}
	return nil
}

// touched returns every setting any step or the baseline sets, sorted.
func (p *Plan) touched() []string {
	set := map[string]bool{}
	for k := range p.Baseline.Values() {
		set[k] = true
	}
	for _, s := range p.Steps {
		for k := range s.Values() {
			set[k] = true
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// VersionStudy is a versions plan as compare-versions takes it: the majors
// (--pg), the baseline's settings (--set, sorted) and the duration.
func (p *Plan) VersionStudy() (pg string, sets []string, duration string) {
	majors := make([]string, len(p.Versions))
	for i, m := range p.Versions {
		majors[i] = strconv.Itoa(m)
	}
	for name, value := range p.Baseline.Settings {
		sets = append(sets, name+"="+string(value))
	}
	sort.Strings(sets)
	return strings.Join(majors, ","), sets, p.Duration.String()
}
