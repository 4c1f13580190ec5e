// Package record is the stored record of one `pgoltp tune` search: the
// document the tuner writes to the results store after every step, and
// `pgoltp report tune` reads back. It holds types only, so that the report
// reads a search without importing the tuner (which runs workloads).
package record

import (
	"math"
	"time"

	"github.com/pgoltp/pgoltp/internal/search"
	"github.com/pgoltp/pgoltp/internal/stats"
)

// Kind is the results store's kind of a tune search.
const Kind = "tune"

// Roles of the runs a search stores, as linked to it in the results store.
const (
	RoleTrial    = "trial"
	RoleBaseline = "baseline"
	RoleConfirm  = "confirm"
	RoleAdvise   = "advise"
	RoleAblation = "ablation"
	RoleLayout   = "layout"
)

// Statuses of a search.
const (
	Running     = "running"
	Complete    = "complete"
	Interrupted = "interrupted"
	Failed      = "failed"
)

// Search is one search: what it ran, and what it found so far.
type Search struct {
	ID        string        `json:"id"`
	Workload  string        `json:"workload"`
	Objective string        `json:"objective"`
	Major     int           `json:"major"`
	Status    string        `json:"status"`
	Started   time.Time     `json:"started"`
	Updated   time.Time     `json:"updated"`
	TrialTime time.Duration `json:"trial_ns"`
	Trials    []Trial       `json:"trials"`
	// Baselines are the objective levels of the baseline runs, in order;
	// BaselineRuns the same runs with what they were measured after.
	Baselines    []float64         `json:"baselines"`
	BaselineRuns []Baseline        `json:"baseline_runs,omitempty"`
	Start        map[string]string `json:"start"`
	Advise       map[string]string `json:"advise,omitempty"`
	Best         map[string]string `json:"best"`      // the whole best configuration
	Confirmed    bool              `json:"confirmed"` // re-run against the baseline (false: interrupted, best so far)
	VsStart      stats.Effect      `json:"gain_over_start"`
	VsAdvise     stats.Effect      `json:"gain_over_advise"`
	BestIsAdvise bool              `json:"best_is_advise,omitempty"` // the best is advise's configuration: VsAdvise not measured
	Ablation     []Contribution    `json:"ablation"`
	Kept         map[string]string `json:"kept"`    // the settings to keep: changed from the start and not dropped
	Dropped      []string          `json:"dropped"` // changed in the best, but removing them cost nothing measurable
	Tried        []string          `json:"tried"`   // every setting the search varied
	Unsafe       []string          `json:"unsafe,omitempty"`
	Importance   []Importance      `json:"importance,omitempty"`
	Layout       *Layout           `json:"layout,omitempty"` // the layout phase (--layout)
	Interrupted  bool              `json:"interrupted"`
	Applied      bool              `json:"applied"`
	Restored     bool              `json:"restored"`
	Notes        []string          `json:"notes,omitempty"`
	Unproven     map[string]string `json:"unproven,omitempty"` // the best's changes when not Shown: listed, kept only with --force
	Design       string            `json:"design,omitempty"`   // how configurations were compared: separate, or auto (switchback where only reload settings differ)
}

// Shown says the best was re-run against the start and its interval lies
// above zero: only then is it a result rather than the start.
func (s *Search) Shown() bool { return s.Confirmed && s.VsStart.Better() }

// MinImportanceTrials is the fewest successful trials importance is
// computed from: below 10, chance alone gives |ρ| up to 1.96/√(N−1) > 0.65
// one time in twenty (at 3 trials any ρ, even ±1, is chance), so a ranking
// would only name the settings the optimiser happened to vary.
const MinImportanceTrials = 10

// Trial is one evaluated configuration.
type Trial struct {
	N         int               `json:"n"`
	Point     search.Point      `json:"point"`
	Settings  map[string]string `json:"settings"`
	Failed    bool              `json:"failed"`
	Error     string            `json:"error,omitempty"`
	Level     float64           `json:"level,omitempty"`     // the objective's level of the run (tps, or 1/p99)
	TPS       float64           `json:"tps,omitempty"`       //
	P99       time.Duration     `json:"p99_ns,omitempty"`    //
	Ratio     float64           `json:"ratio,omitempty"`     // Level / neighbouring baselines: what the optimiser got
	Value     float64           `json:"objective,omitempty"` // Ratio after the p99 limit's penalty
	Restart   bool              `json:"restarted"`
	RunID     string            `json:"run_id,omitempty"`
	BestSoFar float64           `json:"best_so_far"`
}

// Baseline is one run of the starting configuration between trials.
type Baseline struct {
	After int           `json:"after_trial"` // measured after this trial (0: before the first)
	Level float64       `json:"level"`
	TPS   float64       `json:"tps"`
	P99   time.Duration `json:"p99_ns"`
	RunID string        `json:"run_id,omitempty"`
}

// Contribution is one setting's share of the best configuration's gain:
// the best measured without it (the setting at its start value), negated.
type Contribution struct {
	Name     string       `json:"name"`
	Value    string       `json:"value"`
	Start    string       `json:"start"`
	Removal  stats.Effect `json:"removal"` // effect of removing it (negative: it helped)
	Kept     bool         `json:"kept"`
	Measured bool         `json:"measured"`
	Design   string       `json:"design,omitempty"` // how its removal was measured: separate runs or switchback
}

// Importance is how strongly a setting's value went with the objective
// across the successful trials (Spearman's rank correlation ρ over N
// trials): a hint, not a proof.
type Importance struct {
	Name string  `json:"name"`
	Rho  float64 `json:"rho"`
	N    int     `json:"n,omitempty"`
}

// Noise is the |ρ| that N independent trials reach by chance one time in
// twenty (two-sided, normal approximation 1.96/√(N−1)): a smaller |ρ| says
// nothing about the setting.
func (im Importance) Noise() float64 {
	if im.N < 3 {
		return 1
	}
	return 1.96 / math.Sqrt(float64(im.N-1))
}

// Layout is the layout phase: per-table fillfactor, tried by rewriting the
// workload's update-heavy tables, each candidate measured with the best
// settings between runs of the starting layout.
type Layout struct {
	Tables     []string          `json:"tables"`
	Start      map[string]int    `json:"start"`              // fillfactor before the phase (0: not set, PostgreSQL's 100)
	Reference  map[string]string `json:"reference_settings"` // the settings every layout run had
	Candidates []LayoutTrial     `json:"candidates"`
	Best       map[string]int    `json:"best,omitempty"` // the best candidate, confirmed by re-runs
	Gain       stats.Effect      `json:"gain"`           // Best against Start, paired re-runs
	Kept       bool              `json:"kept"`           // Gain's interval lies above zero
	Applied    bool              `json:"applied"`
	Restored   bool              `json:"restored"`
	Notes      []string          `json:"notes,omitempty"`
}

// LayoutTrial is one candidate layout, judged like a settings trial: its
// level over the geometric mean of the neighbouring start-layout runs.
type LayoutTrial struct {
	N          int            `json:"n"`
	Fillfactor map[string]int `json:"fillfactor"`
	Failed     bool           `json:"failed"`
	Error      string         `json:"error,omitempty"`
	TPS        float64        `json:"tps,omitempty"`
	P99        time.Duration  `json:"p99_ns,omitempty"`
	Ratio      float64        `json:"ratio,omitempty"`
	RunID      string         `json:"run_id,omitempty"`
}
