package tune

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/pgoltp/pgoltp/internal/settings"
)

// Plan is an experiment: a baseline and steps, each a set of settings (and
// optionally a data layout), every step measured against the baseline.
//
//	name: checkpoints and WAL
//	workload: {kind: tpcb, scale: 1, clients: 4}
//	duration: 60s        # each measured run
//	repetitions: 3       # A/B pairs per step
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
	Name        string        `yaml:"name"`
	Workload    PlanWorkload  `yaml:"workload"`
	Duration    time.Duration `yaml:"duration"`
	Repetitions int           `yaml:"repetitions"`
	Prewarm     time.Duration `yaml:"prewarm"`
	Confidence  float64       `yaml:"confidence"`
	// ReloadEachRun reloads the data before every measured run, not only for
	// steps that change the layout: for workloads whose data drift (growth,
	// bloat) would otherwise favour whichever arm runs first.
	ReloadEachRun bool   `yaml:"reload_each_run"`
	Baseline      Step   `yaml:"baseline"`
	Steps         []Step `yaml:"steps"`
}

// PlanWorkload names the workload and its size.
type PlanWorkload struct {
	Kind    string `yaml:"kind"`    // ledger | tpcb | tpcc
	Scale   int    `yaml:"scale"`   // tpcb scale, tpcc warehouses, ledger accounts (×1000)
	Clients int    `yaml:"clients"` // connections (tpcc: terminals)
}

// Step is one set of settings and layout options.
type Step struct {
	Name     string            `yaml:"name"`
	Settings map[string]Scalar `yaml:"settings"`
	Layout   map[string]Scalar `yaml:"layout"`
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
func (s Step) LayoutValues() Layout { return Layout(flatten(s.Layout)) }

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
  kind: tpcb        # ledger, tpcb or tpcc
  scale: 1          # tpcb scale, tpcc warehouses, ledger accounts ×10000
  clients: 4        # connections
duration: 60s       # each measured run
repetitions: 3      # pairs per step; more pairs, narrower intervals
prewarm: 10s        # a discarded warm-up run before each measured run
confidence: 0.95
reload_each_run: false   # steps with a layout reload the data before every run anyway
baseline:
  settings: {checkpoint_timeout: 5min, max_wal_size: 1GB}
steps:
  - name: spaced checkpoints
    settings: {checkpoint_timeout: 15min, max_wal_size: 8GB}
  - name: group commit
    settings: {commit_delay: 200, commit_siblings: 5}
  - name: fillfactor 90
    layout: {fillfactor: 90}
# Settings that can lose or corrupt data on a crash (synchronous_commit: 'off',
# fsync: 'off', full_page_writes: 'off') need --allow-unsafe and are labelled
# in every output.
`

// Workload kinds an experiment plan can name.
var planWorkloads = []string{"ledger", "tpcb", "tpcc"}

// ParsePlan reads and checks a plan. Unknown keys are errors (a typo must not
// silently drop a setting); every error is one line naming the problem.
func ParsePlan(r io.Reader) (*Plan, error) {
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
		return nil, fmt.Errorf("not a valid plan: %s", oneLine(err.Error()))
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
		p.Workload.Kind = "ledger"
	}
	if !contains(planWorkloads, p.Workload.Kind) {
		return fmt.Errorf("workload kind %q is not one of %s", p.Workload.Kind, strings.Join(planWorkloads, ", "))
	}
	if p.Workload.Scale < 0 || p.Workload.Clients < 0 {
		return errors.New("workload scale and clients cannot be negative")
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
	if p.Repetitions == 0 {
		p.Repetitions = 3
	}
	if p.Repetitions < 2 || p.Repetitions > 100 {
		return fmt.Errorf("repetitions %d: need 2 to 100 (a confidence interval needs at least two runs per side)", p.Repetitions)
	}
	if p.Confidence == 0 {
		p.Confidence = 0.95
	}
	if p.Confidence < 0.5 || p.Confidence >= 1 {
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
		if len(s.Settings) == 0 && len(s.Layout) == 0 {
			return fmt.Errorf("step %q changes nothing: give it settings or a layout", s.Name)
		}
		if err := settings.CheckApplicable(s.Values()); err != nil {
			return fmt.Errorf("step %q: %v", s.Name, err)
		}
	}
	if err := settings.CheckApplicable(p.Baseline.Values()); err != nil {
		return fmt.Errorf("the baseline: %v", err)
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

// oneLine folds a multi-line message into one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
