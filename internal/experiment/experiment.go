package experiment

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/host"
	"github.com/pgoltp/pgoltp/internal/ossettings"
	"github.com/pgoltp/pgoltp/internal/pending"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/restore"
	"github.com/pgoltp/pgoltp/internal/secret"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/stats"
	"github.com/pgoltp/pgoltp/internal/switchback"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// SetupTimeout bounds the statements an experiment runs before and between
// its measured runs (reading pg_settings, the version): a server that stops
// answering fails the experiment instead of hanging it.
const SetupTimeout = 2 * time.Minute

// Experiment is a plan ready to run on a server.
type Experiment struct {
	Plan     *Plan
	Workload workload.Workload
	Server   restore.Server
	DSN      string // the database the workload runs in (superuser: reads pg_settings, WAL position)
	// PoolerDSN is the same database through the lab's pooler: the data
	// path of a step with via: pooler (Plan.UsesPooler), issue 31.
	PoolerDSN   string
	AllowUnsafe bool      // permit settings that cost durability; they are labelled everywhere
	Log         io.Writer // one line per run; nil = quiet
	// Pending keeps the original settings in the lab from before the first
	// change until they are restored and verified (nil: not kept).
	Pending *pending.Guard
	// OS allows machine-wide OS steps (issue 28: --allow-os, a server on
	// this machine); os is the plan's OS side once checked (nil: none).
	OS ossettings.Options
	os *ossettings.Experiment
	// OnInterval gets the intervals of every measured run as they come (the
	// live endpoint, --metrics-addr); nil: none.
	OnInterval workload.IntervalFunc
	warmFailed bool // WarmCache failed once; not tried again
	major      int  // the server's major (its statistics views: covariates)
	// checkpointFailed: Checkpoint failed once (no privilege); not tried again.
	checkpointFailed bool
}

// Report is everything an experiment measured and concluded.
type Report struct {
	Plan        string        `json:"plan"`
	Workload    string        `json:"workload"`
	Server      string        `json:"server"`
	Major       int           `json:"major"`
	Duration    time.Duration `json:"duration_ns"`
	Prewarm     time.Duration `json:"prewarm_ns"`
	Repetitions string        `json:"repetitions"` // a number of pairs, or auto
	// MaxRepetitions and MinEffect (in %) bound repetitions: auto.
	MaxRepetitions int     `json:"max_repetitions,omitempty"`
	MinEffect      float64 `json:"min_effect_pct,omitempty"`
	Confidence     float64 `json:"confidence"`
	// Level is the confidence of each step's interval: Confidence, or with
	// repetitions: auto the corrected level of each look.
	Level float64 `json:"level"`
	// Method and StopRule say how effects, intervals and the number of
	// pairs were decided (the text report's footnote).
	Method   string          `json:"method"`
	StopRule string          `json:"stop_rule,omitempty"`
	Started  time.Time       `json:"started"`
	Finished time.Time       `json:"finished"`
	Baseline []settings.Pair `json:"baseline"`
	Layout   workload.Layout `json:"baseline_layout,omitempty"`
	Steps    []StepResult    `json:"steps"`
	// Unsafe lists every setting the experiment used that costs durability
	// ("fsync=off [UNSAFE: can-corrupt-on-crash]"); empty when there was none.
	Unsafe   []string `json:"unsafe,omitempty"`
	Restored bool     `json:"restored"` // the server's original values were put back
	Notes    []string `json:"notes,omitempty"`
}

// StepResult is one step against the baseline.
type StepResult struct {
	Name     string          `json:"name"`
	Settings []settings.Pair `json:"settings"`
	Layout   workload.Layout `json:"layout,omitempty"`
	Unsafe   bool            `json:"unsafe"`
	Runs     []RunRecord     `json:"runs"`
	// Throughput is the step's effect on committed transactions per second:
	// paired ratios step/baseline, with interval and minimum detectable
	// effect (internal/stats).
	Throughput  stats.Effect  `json:"throughput"`
	BaselineTPS float64       `json:"baseline_tps"`
	StepTPS     float64       `json:"step_tps"`
	BaselineP99 time.Duration `json:"baseline_p99_ns"` // mean over runs
	StepP99     time.Duration `json:"step_p99_ns"`
	// P99 is the step's effect on p99 latency (negative is faster), from
	// the pairs' spread alone: runs keep no per-second latency.
	P99        stats.Effect `json:"p99_effect"`
	BaselineCV float64      `json:"baseline_cv"` // mean per-second coefficient of variation
	StepCV     float64      `json:"step_cv"`
	InEffect   bool         `json:"in_effect"` // every setting was read back with its intended value in every run
	Verdict    string       `json:"verdict"`   // better | worse | no measurable difference | not in effect | invalid: ...
	// Objective is what Verdict judged (tps or per-cpu); WorkPerCPU is the
	// step's effect on transactions per CPU-second of the server and the
	// driver (invalid when the server's CPU could not be read). Issue 29.3.
	Objective  string       `json:"objective"`
	WorkPerCPU stats.Effect `json:"work_per_cpu"`
	// Design is how the step was measured: DesignSeparate (pairs of runs)
	// or DesignSwitchback (one run alternating the arms, Switchback);
	// DesignWhy says why a plan with design: auto used separate runs.
	Design     string             `json:"design"`
	DesignWhy  string             `json:"design_why,omitempty"`
	Switchback *switchback.Result `json:"switchback,omitempty"`
	// Adjusted is the judged objective's effect adjusted for the runs' (or
	// blocks') covariates (stats.Adjust, issue 29.2): which covariates it
	// used, and why it left the others out. When it used any, the verdict
	// and the stop rule judge it; Throughput and WorkPerCPU stay the
	// unadjusted effects. nil: no covariates were recorded.
	Adjusted *stats.Adjustment `json:"adjusted,omitempty"`
	// Summary is the verdict as shown: with the unsafe label, the minimum
	// detectable effect after "no measurable difference", what was not in
	// effect.
	Summary string `json:"summary"`
	// StoppedBy says why no more pairs were run (stats.Stop*).
	StoppedBy string `json:"stopped_by"`
}

// Verdicts.
const (
	VerdictBetter = "better"
	VerdictWorse  = "worse"
	VerdictSame   = "no measurable difference"
	// VerdictNotInEffect: a setting was not what the step asked for in a
	// run, so the numbers say nothing about the step.
	VerdictNotInEffect = "not in effect"
)

// Objectives of a plan: what a step's verdict judges.
const (
	ObjectiveTPS    = "tps"
	ObjectivePerCPU = "per-cpu"
)

// Judged is the effect the verdict and the stop rule judge: on throughput,
// or on work per CPU; adjusted for covariates when the adjustment used any
// (decided before any run: the covariates are taken in a fixed order, and
// the guards look at the covariates, never at the effect).
func (sr *StepResult) Judged() stats.Effect {
	if a := sr.Adjusted; a != nil && len(a.Used) > 0 {
		return a.Effect
	}
	return sr.Unadjusted()
}

// Unadjusted is the judged objective's effect before adjustment.
func (sr *StepResult) Unadjusted() stats.Effect {
	if sr.Objective == ObjectivePerCPU {
		return sr.WorkPerCPU
	}
	return sr.Throughput
}

// Arms of an A/B pair.
const (
	ArmBaseline = "baseline"
	ArmStep     = "step"
)

// RunRecord is one measured run.
type RunRecord struct {
	Arm string `json:"arm"` // baseline | step
	// Repetition numbers the runs of an arm: baseline runs 1..n+1 around
	// step runs 1..n.
	Repetition  int                  `json:"repetition"`
	Measurement workload.Measurement `json:"measurement"`
	TPS         float64              `json:"tps"`
	CV          float64              `json:"cv"`
	Restarted   bool                 `json:"restarted"`     // applying the arm's settings restarted the server
	Reloaded    bool                 `json:"data_reloaded"` // the data was reloaded before the run (layout change)
	WALBytes    int64                `json:"wal_bytes"`     // WAL written during the measured run
	// Checkpoint is where the checkpoint run before this run's warm-up
	// ended (Checkpoint); "" when none could be run.
	Checkpoint string `json:"checkpoint_lsn,omitempty"`
	// Covariates are what the neighbours, the CPU, the page cache and the
	// server did during the measured run (covariates.go), by name.
	Covariates map[string]float64 `json:"covariates,omitempty"`
	// Observed is what pg_settings said during the run, for every setting of the arm.
	Observed map[string]string `json:"observed"`
	Mismatch []string          `json:"mismatch,omitempty"` // settings whose observed value differed from the intended one
}

// Run runs the experiment: baseline data, then for each step pairs of
// baseline and step runs, interleaved and closed by a baseline run
// (A B A B … A) so that every step run has a baseline run on each side and
// drift (cache warming, table growth, a noisy neighbour) falls on both
// sides alike. With repetitions: auto it adds pairs until the stop rule
// is met (Plan.Sequential).
func (e *Experiment) Run(ctx context.Context) (*Report, error) {
	p := e.Plan
	if p.UsesPooler() && e.PoolerDSN == "" {
		return nil, problem.BadInput("run the plan on a lab with a pooler ('pgoltp cluster up --pooler pgbouncer'), or drop via: pooler",
			"steps.via: pooler needs the lab's pooler, and this experiment has none")
	}
	live, major, version, err := e.readServer(ctx)
	if err != nil {
		return nil, err
	}
	if err := e.validate(live, major); err != nil {
		return nil, err
	}
	e.major = major
	// issue 28 (ossettings): the plan's machine-wide OS settings, refused or checked before anything runs.
	osSteps := map[string]map[string]string{}
	for _, s := range p.Steps {
		osSteps[s.Name] = s.OS
	}
	if e.os, err = ossettings.Prepare(e.OS, live, p.Baseline.OS, osSteps); err != nil {
		return nil, err
	}
	rep := &Report{
		Plan: p.Name, Workload: e.Workload.Name(), Server: version, Major: major,
		Duration: p.Duration, Prewarm: p.Prewarm, Repetitions: p.Repetitions.String(), Confidence: p.Confidence,
		Level: p.Level(), Method: stats.Method(p.Level()),
		Started: time.Now().UTC(), Baseline: append(settings.Labelled(major, p.Baseline.Values()), ossettings.Pairs(p.Baseline.OS)...),
		Layout: p.Baseline.LayoutValues(),
	}
	rep.Unsafe = unsafeList(major, p)
	if p.Repetitions.Auto {
		rep.MaxRepetitions, rep.MinEffect, rep.StopRule = p.MaxRepetitions, float64(p.MinEffect), p.Sequential().Describe()
	}

	// Kept in the lab before anything changes: a kill -9 leaves a record.
	if live, err = e.Pending.Begin(live, p.touched()); err != nil {
		return nil, err
	}
	// The values before the experiment stand in for the baseline of settings
	// the baseline does not name.
	original := map[string]string{}
	for _, name := range p.touched() {
		original[name] = live[name].Value()
	}
	defer func() {
		// Restore even when the run failed or was interrupted; the OS first
		// (issue 28), so that a failure there keeps the record.
		osRestored, osNotes := e.os.Restore(e.Pending)
		rep.Restored, rep.Notes = restore.Kept(ctx, e.Server, e.DSN, e.Pending, live, p.touched(), append(rep.Notes, osNotes...))
		rep.Restored = rep.Restored && osRestored
	}()
	if err := e.os.Keep(e.Pending); err != nil { // issue 28: OS originals kept before the first change
		return rep, err
	}

	e.logf("preparing %s", e.Workload.Name())
	baseLayout := p.Baseline.LayoutValues()
	if err := e.Workload.Prepare(ctx, e.DSN, baseLayout); err != nil {
		return rep, fmt.Errorf("preparing the workload: %w", err)
	}
	current := baseLayout

	for _, step := range p.Steps {
		sr, err := e.runStep(ctx, step, major, original, baseLayout, &current)
		rep.Steps = append(rep.Steps, sr)
		if err != nil {
			return rep, err
		}
	}
	rep.Finished = time.Now().UTC()
	return rep, nil
}

// runStep measures one step against the baseline: a baseline run, then
// step and baseline runs in turn until the plan's repetitions or stop rule
// say enough. original holds the values before the experiment; current is
// the layout the data has now.
func (e *Experiment) runStep(ctx context.Context, step Step, major int, original map[string]string, baseLayout workload.Layout, current *workload.Layout) (StepResult, error) {
	p := e.Plan
	sr := StepResult{Name: step.Name, Settings: settings.Labelled(major, step.Values()), Layout: step.LayoutValues(), Objective: p.Objective}
	sr.Unsafe = settings.WorstRisk(major, step.Values()).Unsafe()
	// The baseline arm sets every setting the plan touches anywhere, so
	// that an earlier step's values never leak into a later step's runs.
	armA := maps.Clone(original)
	maps.Copy(armA, p.Baseline.Values())
	armB := maps.Clone(armA)
	maps.Copy(armB, step.Values())
	layoutA := baseLayout
	layoutB := maps.Clone(baseLayout)
	if layoutB == nil {
		layoutB = workload.Layout{}
	}
	maps.Copy(layoutB, step.LayoutValues())
	// issue 28 (ossettings): each arm's machine-wide OS settings, labelled in the report.
	osA, osB := e.os.Arm("", armA), e.os.Arm(step.Name, armB)
	sr.Settings = append(append(sr.Settings, ossettings.Pairs(step.OS)...), viaPair(step)...)

	risk := settings.WorstRisk(major, step.Values())
	if sr.Design, sr.DesignWhy = designFor(p, step, major); sr.Design == DesignSwitchback { // issue 29.1
		return sr, e.runSwitchback(ctx, &sr, armA, armB, risk)
	}
	// "step run 2/3", "baseline run 4/4" (one baseline run more than
	// step runs); with auto the counts are upper bounds.
	runsOf := func(arm string) string {
		n, bound := p.Repetitions.Pairs, ""
		if p.Repetitions.Auto {
			n, bound = p.MaxRepetitions, "≤"
		}
		if arm == ArmBaseline {
			n++
		}
		return bound + strconv.Itoa(n)
	}
	measure := func(arm string, r int) error {
		values, layout, osArm := armA, layoutA, osA
		if arm == ArmStep {
			values, layout, osArm = armB, layoutB, osB
		}
		if err := e.os.Apply(osArm); err != nil {
			return fmt.Errorf("step %q, %s run %d: %w", step.Name, arm, r, err)
		}
		rec, err := e.runOnce(ctx, e.dataDSN(arm, step), values, layout, current, len(step.Layout) > 0 || p.ReloadEachRun)
		rec.Arm, rec.Repetition = arm, r
		rec.Mismatch = append(rec.Mismatch, e.os.Differ(osArm)...)
		if err != nil {
			return fmt.Errorf("step %q, %s run %d: %w", step.Name, arm, r, err)
		}
		tag := ""
		if arm == ArmStep && sr.Unsafe {
			tag = " " + settings.Tag(risk)
		}
		e.logf("%-20s %-8s run %d/%s: %8.1f tps  p99 %-9s cv %.3f%s%s", step.Name, arm, r, runsOf(arm),
			rec.TPS, rec.Measurement.P99.Round(10*time.Microsecond), rec.CV, mismatchNote(rec.Mismatch), tag)
		sr.Runs = append(sr.Runs, rec)
		return nil
	}
	if err := measure(ArmBaseline, 1); err != nil {
		return sr, err
	}
	for r := 1; ; r++ {
		if err := measure(ArmStep, r); err != nil {
			return sr, err
		}
		if err := measure(ArmBaseline, r+1); err != nil {
			return sr, err
		}
		summarize(&sr, p.Level(), risk)
		if stop, why := stopAfter(p, &sr, r); stop {
			sr.StoppedBy = why
			break
		}
	}
	sr.Summary += ossettings.VerdictNote(step.OS) // issue 28: labelled machine-wide
	e.logVerdict(sr, "pairs, stopped: "+sr.StoppedBy)
	return sr, nil
}

// logVerdict logs a step's verdict with the effect it judged.
func (e *Experiment) logVerdict(sr StepResult, pairs string) {
	j := sr.Judged()
	e.logf("%-20s %s: %s %+.1f%% (%s CI %+.1f%% .. %+.1f%%, %d %s)", sr.Name, sr.Summary, judgedName(sr), j.Percent,
		levelText(j.Level), j.Low, j.High, j.Pairs, pairs)
}

// runOnce applies an arm's settings (restarting only if needed), reloads the
// data if the layout differs, prewarms, and measures one run while reading
// the settings back from pg_settings halfway through. The workload's runs
// connect to dataDSN (the arm's data path); everything else to e.DSN.
func (e *Experiment) runOnce(ctx context.Context, dataDSN string, values map[string]string, layout workload.Layout, current *workload.Layout, reloadEach bool) (RunRecord, error) {
	var rec RunRecord
	restarted, err := restore.Apply(ctx, e.Server, values)
	if err != nil {
		return rec, fmt.Errorf("applying settings: %w", err)
	}
	rec.Restarted = restarted
	if reloadEach || !maps.Equal(*current, layout) {
		// Runs change the data (updates, growth); a step that changes the
		// layout is only comparable on freshly loaded data, both arms alike.
		if err := e.Workload.Prepare(ctx, e.DSN, layout); err != nil {
			return rec, fmt.Errorf("reloading the data: %w", err)
		}
		*current = layout
		rec.Reloaded = true
	}
	if (restarted || rec.Reloaded) && !e.warmFailed {
		// A restart empties shared buffers and a reload fills them with
		// whatever the load touched last: refill them the same way for both
		// arms, so a step is not measured colder than its baseline.
		if _, err := WarmCache(ctx, e.DSN); err != nil {
			e.warmFailed = true
			e.logf("cache not refilled after a restart (%v): the prewarm run warms alone", err)
		}
	}
	if !e.checkpointFailed {
		// Every run starts right after a checkpoint (see Checkpoint).
		lsn, err := Checkpoint(ctx, e.DSN)
		rec.Checkpoint = lsn
		if err != nil {
			e.checkpointFailed = true
			e.logf("runs not aligned on a checkpoint (%v): a checkpoint landing in one run of a pair adds noise", err)
		}
	}
	if e.Plan.Prewarm > 0 {
		if _, err := e.Workload.Run(ctx, dataDSN, workload.RunOptions{Duration: e.Plan.Prewarm}); err != nil {
			return rec, fmt.Errorf("prewarm run: %w", err)
		}
	}
	conn, err := adminconn.Connect(ctx, e.DSN)
	if err != nil {
		return rec, err
	}
	defer conn.Close(context.Background())
	var startLSN string
	if err := conn.QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&startLSN); err != nil {
		return rec, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	observed := e.observeHalfway(runCtx, sortedKeys(values))
	before := readActivity(ctx, conn, e.major)
	meter := collect.StartCPU(collect.ServerPID(ctx, conn)) // issue 29.3: work per CPU
	res, err := e.Workload.Run(ctx, dataDSN, workload.RunOptions{Duration: e.Plan.Duration, OnInterval: e.OnInterval})
	if err != nil {
		meter.Stop(time.Time{}, time.Time{})
		return rec, fmt.Errorf("workload: %w", err)
	}
	u := meter.Stop(res.MeasureStart, res.MeasureEnd)
	res.SetCPU(u.Server, u.Driver, u.Steal, u.Probe)
	m := res.Measurement
	rec.Covariates = HostCovariates(u, m.Elapsed.Seconds()) // issue 29.2
	obs := <-observed
	if obs.err != nil {
		return rec, fmt.Errorf("reading pg_settings during the run: %w", obs.err)
	}
	var wal int64
	if err := conn.QueryRow(ctx, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint", startLSN).Scan(&wal); err != nil {
		return rec, err
	}
	rec.Measurement, rec.TPS, rec.CV, rec.WALBytes = m, m.TPS(), m.CV(), wal
	serverCovariates(rec.Covariates, before, readActivity(ctx, conn, e.major), wal, m.Transactions)
	rec.compare(values, obs.values)
	return rec, nil
}

// observation is pg_settings as a run saw them.
type observation struct {
	values map[string]settings.Live
	err    error
}

// observeHalfway reads the named settings halfway through the run, from a
// fresh session, as a new backend of the workload would see them (the
// session pins every other session setting: a step's statement_timeout of
// 1ms must not cancel the reading of the others).
func (e *Experiment) observeHalfway(runCtx context.Context, names []string) <-chan observation {
	observed := make(chan observation, 1)
	go func() {
		select {
		case <-runCtx.Done():
			observed <- observation{err: runCtx.Err()}
			return
		case <-time.After(e.Plan.Duration / 2):
		}
		c, err := connectExcept(runCtx, e.DSN, names)
		if err != nil {
			observed <- observation{err: err}
			return
		}
		defer c.Close(context.Background())
		v, _, err := settings.ReadServer(runCtx, c, names...)
		observed <- observation{values: v, err: err}
	}()
	return observed
}

// connectExcept opens an administrative session that pins every session
// setting but the named ones, whose server-wide values it must see.
func connectExcept(ctx context.Context, dsn string, names []string) (*pgx.Conn, error) {
	cfg, err := adminconn.Config(dsn, names...)
	if err != nil {
		return nil, err
	}
	return pgx.ConnectConfig(ctx, cfg)
}

// compare records the settings observed during the run, and every one that
// was not what the arm set (secret values redacted: the record is written).
func (rec *RunRecord) compare(values map[string]string, observed map[string]settings.Live) {
	rec.Observed = map[string]string{}
	for _, name := range sortedKeys(values) {
		l, ok := observed[name]
		if !ok {
			rec.Mismatch = append(rec.Mismatch, name+" (not reported)")
			continue
		}
		rec.Observed[name] = secret.Redact(name, l.Value())
		if !l.Same(values[name]) {
			rec.Mismatch = append(rec.Mismatch, fmt.Sprintf("%s=%s (wanted %s)", name, secret.Redact(name, l.Value()), secret.Redact(name, values[name])))
		}
	}
}

// stopAfter says whether a step needs no more pairs after the r-th, and why.
func stopAfter(p *Plan, sr *StepResult, r int) (bool, string) {
	switch {
	case !sr.InEffect:
		// More pairs cannot make runs with the wrong settings say anything.
		return true, stats.StopNotInEffect
	case !p.Repetitions.Auto:
		return r >= p.Repetitions.Pairs, stats.StopFixed
	}
	return p.Sequential().Stop(sr.Judged())
}

// summarize computes a step's effect, p99, stability and verdict from its
// runs (B1 S1 B2 … Sn Bn+1), at confidence level.
func summarize(sr *StepResult, level float64, risk settings.Risk) {
	var tpsA, tpsB, p99A, p99B []stats.Run
	var a, b, pa, pb, cva, cvb []float64
	sr.InEffect = true
	var mismatch []string
	for _, r := range sr.Runs {
		if len(r.Mismatch) > 0 {
			sr.InEffect = false
			mismatch = append(mismatch, r.Mismatch...)
		}
		tps := stats.Run{Level: r.TPS, Samples: r.Measurement.PerSecond}
		p99 := stats.Run{Level: float64(r.Measurement.P99)}
		if r.Arm == ArmBaseline {
			tpsA, p99A = append(tpsA, tps), append(p99A, p99)
			a, pa, cva = append(a, r.TPS), append(pa, p99.Level), append(cva, r.CV)
		} else {
			tpsB, p99B = append(tpsB, tps), append(p99B, p99)
			b, pb, cvb = append(b, r.TPS), append(pb, p99.Level), append(cvb, r.CV)
		}
	}
	sr.Throughput = stats.Paired(tpsA, tpsB, level)
	sr.WorkPerCPU = perCPUEffect(sr.Runs, level)
	sr.Adjusted = adjustRuns(sr.Runs, sr.Objective, sr.Unadjusted()) // issue 29.2
	sr.P99 = stats.Paired(p99A, p99B, level)
	sr.BaselineTPS, _ = meanSD(a)
	sr.StepTPS, _ = meanSD(b)
	mpa, _ := meanSD(pa)
	mpb, _ := meanSD(pb)
	sr.BaselineP99, sr.StepP99 = time.Duration(mpa), time.Duration(mpb)
	sr.BaselineCV, _ = meanSD(cva)
	sr.StepCV, _ = meanSD(cvb)
	decide(sr, mismatch, risk)
}

// decide sets a step's verdict and summary from its judged effect.
func decide(sr *StepResult, mismatch []string, risk settings.Risk) {
	switch {
	case !sr.InEffect:
		sr.Verdict = VerdictNotInEffect
		sr.Summary = VerdictNotInEffect + ": " + strings.Join(mismatch, ", ")
		return
	case !sr.Judged().Valid:
		sr.Verdict = "invalid: too few runs for a confidence interval"
		if sr.Objective == ObjectivePerCPU {
			sr.Verdict = "invalid: the server's CPU could not be read from /proc (objective per-cpu needs the server on this host)"
		}
		sr.Summary = sr.Verdict
		return
	case sr.Judged().Better():
		sr.Verdict = VerdictBetter
	case sr.Judged().Worse():
		sr.Verdict = VerdictWorse
	default:
		sr.Verdict = VerdictSame
	}
	sr.Summary = sr.Verdict
	if risk.Unsafe() {
		// "better (unsafe: can lose data on crash)": a gain bought with durability.
		sr.Summary += " (unsafe: " + strings.ReplaceAll(string(risk), "-", " ") + ")"
	}
	if sr.Verdict == VerdictSame {
		sr.Summary += fmt.Sprintf(" (effects smaller than ±%.1f%% cannot be seen with this noise)", sr.Judged().MDE)
	}
}

// perCPUEffect is the step's paired effect on transactions per CPU-second
// of the server and the driver; invalid unless every run measured both.
func perCPUEffect(runs []RunRecord, level float64) stats.Effect {
	var a, b []stats.Run
	for _, r := range runs {
		v := r.Measurement.PerCPU()
		if v <= 0 {
			return stats.Effect{}
		}
		if r.Arm == ArmBaseline {
			a = append(a, stats.Run{Level: v})
		} else {
			b = append(b, stats.Run{Level: v})
		}
	}
	return stats.Paired(a, b, level)
}

// levelText is a confidence level as "95%" or "99%".
func levelText(level float64) string {
	return strconv.FormatFloat(100*level, 'g', 4, 64) + "%"
}

// readServer reads pg_settings and the version string.
func (e *Experiment) readServer(ctx context.Context) (map[string]settings.Live, int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, SetupTimeout)
	defer cancel()
	conn, err := adminconn.Connect(ctx, e.DSN)
	if err != nil {
		return nil, 0, "", problem.Wrap(err, "check the server", "cannot connect for the experiment")
	}
	defer conn.Close(context.Background())
	live, major, err := settings.ReadServer(ctx, conn)
	if err != nil {
		return nil, 0, "", err
	}
	var version string
	if err := conn.QueryRow(ctx, "SELECT 'PostgreSQL ' || current_setting('server_version')").Scan(&version); err != nil {
		return nil, 0, "", err
	}
	return live, major, version, nil
}

// validate checks every setting and layout option of the plan against the
// server before anything runs: a typo or an unsafe value without
// --allow-unsafe stops here, as bad input.
func (e *Experiment) validate(live map[string]settings.Live, major int) error {
	p := e.Plan
	_, canRestart := e.Server.(restore.Restarter)
	check := func(where string, values map[string]string) error {
		for _, name := range sortedKeys(values) {
			v := values[name]
			if err := settings.ValidateLive(live, major, name, v); err != nil {
				return problem.BadInput("fix the plan", "%s: %v", where, err)
			}
			if l, ok := live[name]; ok && l.Context == settings.Postmaster && !canRestart {
				return problem.BadInput("run the plan on the lab's managed cluster (drop --dsn), or leave restart-only settings out",
					"%s sets %s, which needs a restart, and pgoltp does not restart a server it does not own", where, name)
			}
			if r, why := settings.LabelFor(major, name, v); r.Unsafe() && !e.AllowUnsafe {
				return problem.BadInput("pass --allow-unsafe to measure it anyway (it is then labelled in every output)",
					"%s sets %s=%s, which is %s: %s", where, name, v, r, why)
			}
		}
		return nil
	}
	if err := check("the baseline", p.Baseline.Values()); err != nil {
		return err
	}
	// Each arm as the server will run it: what it has now, the baseline, the step.
	current := map[string]string{}
	for name, l := range live {
		current[name] = l.Value()
	}
	arm := func(step map[string]string) map[string]string {
		v := maps.Clone(current)
		maps.Copy(v, p.Baseline.Values())
		maps.Copy(v, step)
		return v
	}
	if err := settings.CheckTogether(arm(nil)); err != nil {
		return problem.BadInput("fix the plan", "the baseline: %v", err)
	}
	for _, s := range p.Steps {
		if err := settings.CheckTogether(arm(s.Values())); err != nil {
			return problem.BadInput("fix the plan", "step %q: %v", s.Name, err)
		}
		v := arm(s.Values())
		// hugepages: auto reserves the huge pages huge_pages=on needs (issue 28).
		if err := MemoryFits(v); err != nil && s.OS[ossettings.Hugepages] == "" && p.Baseline.OS[ossettings.Hugepages] == "" {
			return problem.BadInput("fix the plan (for huge pages see 'pgoltp doctor')", "step %q: %v", s.Name, err)
		}
		if n, err := strconv.Atoi(v["max_connections"]); err == nil && n < p.Workload.Clients+5 {
			return problem.BadInput("raise max_connections or lower the clients", "step %q: max_connections=%d leaves no room for %d clients", s.Name, n, p.Workload.Clients)
		}
	}
	var supported []string
	if lo, ok := e.Workload.(workload.LayoutOptions); ok {
		supported = lo.LayoutOptions()
	}
	checkLayout := func(where string, l workload.Layout) error {
		for k := range l {
			if !slices.Contains(supported, k) {
				return problem.BadInput("use one of: "+strings.Join(append([]string{"(none)"}, supported...), ", "),
					"%s: the %s workload has no layout option %q", where, p.Workload.Kind, k)
			}
		}
		return nil
	}
	if err := checkLayout("the baseline", p.Baseline.LayoutValues()); err != nil {
		return err
	}
	for _, s := range p.Steps {
		where := fmt.Sprintf("step %q", s.Name)
		if err := check(where, s.Values()); err != nil {
			return err
		}
		if err := checkLayout(where, s.LayoutValues()); err != nil {
			return err
		}
	}
	return nil
}

// unsafeList names every unsafe setting of the plan with its tag.
func unsafeList(major int, p *Plan) []string {
	var out []string
	add := func(values map[string]string) {
		for _, name := range sortedKeys(values) {
			if r, _ := settings.LabelFor(major, name, values[name]); r.Unsafe() {
				out = append(out, fmt.Sprintf("%s=%s %s", name, values[name], settings.Tag(r)))
			}
		}
	}
	add(p.Baseline.Values())
	for _, s := range p.Steps {
		add(s.Values())
	}
	return out
}

func (e *Experiment) logf(format string, args ...any) {
	if e.Log != nil {
		fmt.Fprintf(e.Log, format+"\n", args...)
	}
}

func mismatchNote(m []string) string {
	if len(m) == 0 {
		return ""
	}
	return "  NOT IN EFFECT: " + strings.Join(m, ", ")
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// MemoryFits refuses what would keep a server on this host from starting:
// shared_buffers beyond its memory, huge_pages=on without reserved huge
// pages. (Restarts only happen on the lab's cluster, which runs here.)
func MemoryFits(values map[string]string) error {
	mem := host.ReadMeminfo()
	if sb, err := settings.ToUnit(values["shared_buffers"], "B"); err == nil && mem.Total > 0 && sb > 0.9*float64(mem.Total) {
		return fmt.Errorf("shared_buffers=%s is more than 90%% of this host's %s of memory: the server would not start or would be killed", values["shared_buffers"], host.HumanBytes(mem.Total))
	}
	if strings.ToLower(strings.Trim(values["huge_pages"], "'")) != "on" {
		return nil
	}
	if mem.HugePagesTotal == 0 {
		return fmt.Errorf("huge_pages=on but this host has no huge pages reserved (vm.nr_hugepages=0): the server would not start")
	}
	return nil
}
