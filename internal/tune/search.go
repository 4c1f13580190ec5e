package tune

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/ossettings"
	"github.com/pgoltp/pgoltp/internal/pending"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/search"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/stats"
	"github.com/pgoltp/pgoltp/internal/tune/record"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Tuner is one search, ready to run.
type Tuner struct {
	Server   Server
	Workload Workload
	Recorder Recorder // nil: runs are not stored
	Lab      string   // where the search state is kept (LAB/tune)
	Limits   Limits

	ID          string
	Seed        int64
	Objective   string        // tps (default), tpmc or p99
	MaxP99      time.Duration // 0: no limit
	AllowUnsafe bool
	Budget      int           // trials
	TrialTime   time.Duration // measured run per trial
	Prewarm     time.Duration // unmeasured run before every measured one
	// Reload loads the workload's data again before every measured run
	// but the layout phase's, so that every run measures the same database.
	Reload  bool
	Advise  map[string]string
	Confirm int // top candidates re-run before one is declared best (default 3)
	// MinEffect (%, default 5) and MaxPairs (default 5) bound every
	// comparison's sequential rule (rule).
	MinEffect float64
	MaxPairs  int
	Ablation  int  // at most this many settings ablated, largest changes first (0: all)
	Apply     bool // keep the result on the server instead of restoring
	// Force applies (with Apply) a best that was not shown better than the
	// start; without it such a best is only listed, as unproven.
	Force bool
	// Design is how two configurations are compared: separate (pairs of
	// runs, the default) or auto (a switchback run when they differ only in
	// settings that take effect on reload within seconds; switchback.go).
	Design string
	// Format is how the command also writes the result (conf or sql); the
	// verdict refuses it for an unproven best without Force.
	Format string
	// Layout, when set, runs the layout phase after the settings search:
	// per-table fillfactor of these tables (layout.go).
	Layout Tables
	Resume *State
	// Pending keeps the server's original settings in the lab from before
	// the first change until they are restored and verified, or the result
	// is kept (nil: not kept).
	Pending *pending.Guard
	Log     io.Writer
	// Inject replaces settings of the given trial (1-based) after the
	// optimiser chose it: the end-to-end test's way to force a trial the
	// server cannot start with. Every value still passes
	// settings.CheckApplicable.
	Inject map[int]map[string]string
	// OS is the search's OS side (tune --os): its dimensions, the
	// machine's originals and how a run's values reach the machine (nil:
	// settings only).
	OS *ossettings.Search
}

// Result is what a search found, proved and explained: the search's
// record, as stored in the results store for 'pgoltp report tune'.
type Result struct{ record.Search }

// Contribution is one setting's share of the best configuration's gain.
type Contribution = record.Contribution

// Importance is how strongly a setting's value went with the objective.
type Importance = record.Importance

// session is the running state of a search.
type session struct {
	*Tuner
	ctx      context.Context // uncancelled: a run in progress finishes
	outer    context.Context // cancelled by Ctrl-C: no new run starts
	space    *Space
	major    int
	state    *State
	start    search.Point
	startSet map[string]string
	opt      *search.Optimizer
	warm     []search.Point // advise's configuration, when it fits the space
	// warmFailed: WarmCache failed once; not tried again.
	warmFailed bool
	// checkpointFailed: Checkpoint failed once; not tried again.
	checkpointFailed bool
	// osRestored: the machine's OS originals are back (restoreOS).
	osRestored bool
}

// Run runs the search. It holds no lock: the caller holds the lab's.
func (t *Tuner) Run(ctx context.Context) (res *Result, err error) {
	s, live, err := t.open(ctx)
	if err != nil {
		return nil, err
	}
	res = &Result{record.Search{ID: s.state.ID, Workload: t.Workload.Name(), Objective: t.Objective, Major: s.major,
		Start: s.startSet, Advise: t.Advise, TrialTime: s.state.Trial, Started: s.state.Started, Design: t.Design}}
	// Registered first, so it runs last: the stored record says whether
	// the settings were restored.
	defer func() { s.store(res, searchStatus(res, err)) }()
	kept := false
	defer func() {
		if !kept {
			s.restore(ctx, live, res)
		}
	}()
	if err := s.search(ctx, res); err != nil {
		return res, err
	}
	res.Trials, res.Baselines = s.state.Trials, s.state.Baselines
	res.Tried = s.space.Names()
	res.Importance = importance(s.space, s.state.Trials)

	// Interrupted, nothing is re-run: only a trial that beat the start may
	// be shown as the best so far. Otherwise the re-runs decide.
	res.Interrupted = res.Interrupted || ctx.Err() != nil
	// finish runs the layout phase (when asked) with the settings kept.
	finish := func() (*Result, error) {
		if t.Layout != nil && !res.Interrupted && ctx.Err() == nil {
			if err := s.layout(withStart(res.Kept, s.startSet), res); err != nil {
				return res, err
			}
		}
		return res, nil
	}
	cands := candidatesFrom(s.opt, s.start, t.Confirm, res.Interrupted)
	if len(cands) == 0 {
		why := "every trial failed"
		if res.Interrupted {
			why = "no trial beat the start so far"
		}
		res.Notes = append(res.Notes, why+": nothing to recommend")
		res.Best = s.startSet
		return finish()
	}
	res.Best = s.space.Settings(cands[0])
	if res.Interrupted {
		s.unproven(res, "interrupted: the best so far is not confirmed by re-runs")
		return res, nil
	}
	if better, err := s.confirm(res, cands); err != nil {
		return res, err
	} else if !better {
		if _, err := finish(); err != nil {
			return res, err
		}
		kept, err = s.forceUnproven(res)
		return res, err
	}
	if !res.Interrupted {
		var aerr error
		if res.Ablation, aerr = s.ablate(res.Best); aerr != nil {
			res.Notes = append(res.Notes, "ablation stopped: "+oneLine(aerr.Error()))
			res.Interrupted = ctx.Err() != nil
		}
	}
	s.keepAblated(res)
	if _, err := finish(); err != nil {
		return res, err
	}
	if t.Apply && !res.Interrupted {
		kept, err = s.keep(res, res.Kept, "applying the result")
	}
	return res, err
}

// keep applies values over the start and leaves them on the server.
// The machine-wide OS settings are never kept: they are restored (and the
// result gives them as an os: block).
func (s *session) keep(res *Result, values map[string]string, what string) (bool, error) {
	if _, err := s.Server.Apply(s.ctx, pgOnly(withStart(values, s.startSet))); err != nil {
		return false, fmt.Errorf("%s: %w", what, err)
	}
	res.Applied = true
	if !s.restoreOS(res) {
		return true, errors.New("the machine-wide OS settings could NOT be restored: run 'pgoltp restore'")
	}
	if err := s.Pending.Done(); err != nil {
		res.Notes = append(res.Notes, "the original settings' record stays in the lab: "+err.Error())
	}
	return true, nil
}

// searchStatus is the stored status of a search that ended with err.
func searchStatus(res *Result, err error) string {
	switch {
	case err != nil:
		return record.Failed
	case res.Interrupted:
		return record.Interrupted
	}
	return record.Complete
}

// keepAblated keeps the best settings that differ from the start, less
// those the ablation measured as not worth keeping.
func (s *session) keepAblated(res *Result) {
	res.Kept = changed(res.Best, s.startSet)
	for _, c := range res.Ablation {
		if c.Measured && !c.Kept {
			delete(res.Kept, c.Name)
			res.Dropped = append(res.Dropped, c.Name)
		}
	}
	res.Unsafe = Unsafe(s.major, res.Kept)
}

// layout runs the layout phase and leaves the tables at its kept layout
// with --apply, else as they were before it (verified by reading them back).
func (s *session) layout(ref map[string]string, res *Result) error {
	err := s.layoutPhase(ref, res)
	lay := res.Layout
	if lay == nil {
		return err
	}
	if err != nil {
		lay.Notes = append(lay.Notes, "layout phase stopped: "+oneLine(err.Error()))
	}
	want := lay.Start
	if s.Apply && lay.Kept {
		want, lay.Applied = lay.Best, true
	}
	if rerr := s.Layout.Rewrite(s.ctx, want); rerr != nil {
		return fmt.Errorf("putting the tables' fillfactor back: %w", rerr)
	}
	got, rerr := s.Layout.Fillfactors(s.ctx)
	if rerr != nil {
		return fmt.Errorf("reading the tables' fillfactor back: %w", rerr)
	}
	for _, t := range lay.Tables {
		if got[t] != want[t] {
			return fmt.Errorf("table %s has fillfactor %d after the layout phase, not %d", t, got[t], want[t])
		}
	}
	lay.Restored = !lay.Applied
	return nil
}

// store writes the search's record to the results store; a failure to
// store is said, not fatal (the lab's state still allows --resume).
func (s *session) store(res *Result, status string) {
	if s.Recorder == nil {
		return
	}
	res.Trials, res.Baselines, res.BaselineRuns = s.state.Trials, s.state.Baselines, s.state.BaselineRuns
	res.Status, res.Updated = status, time.Now().UTC()
	if err := s.Recorder.Save(s.ctx, &res.Search); err != nil {
		s.logf("  could not store the search: %v", err)
	}
}

// open reads the server, builds the search space and the optimiser
// (warm-started with advise's configuration), and starts or resumes the
// search's state. It returns the server's settings as they were.
func (t *Tuner) open(ctx context.Context) (*session, map[string]settings.Live, error) {
	if t.Objective == "" {
		t.Objective = ObjectiveTPS
	}
	if t.Confirm <= 0 {
		t.Confirm = 3
	}
	live, major, err := t.Server.Read(ctx)
	if err != nil {
		return nil, nil, err
	}
	// Resumed, the server may still hold a killed trial's values: the
	// originals are the stored ones, never what the server shows now.
	live = t.Resume.originals(live)
	if l, ok := live["max_connections"]; ok && t.Limits.MaxConnections == 0 {
		fmt.Sscan(l.Setting, &t.Limits.MaxConnections)
	}
	space, err := NewSpace(major, live, t.Limits, t.AllowUnsafe)
	if err == nil && t.OS != nil {
		space, err = space.withOS(t.OS.Dims)
	}
	if err != nil {
		return nil, nil, err
	}
	start, err := space.StartPoint(live)
	if err != nil {
		return nil, nil, err
	}
	s := &session{Tuner: t, ctx: context.WithoutCancel(ctx), outer: ctx, space: space, major: major, start: start, startSet: space.Settings(start)}
	if len(t.Advise) > 0 {
		if p, err := space.PointOf(t.Advise, start); err == nil {
			if p, err = space.Fit(p); err == nil {
				s.warm = append(s.warm, p)
			}
		}
	}
	// Kept in the lab before anything changes: a kill -9 leaves a record.
	if live, err = t.Pending.Begin(live, s.restoreNames()); err != nil {
		return nil, nil, err
	}
	// The machine's OS originals join the record, fsynced, before the
	// first change (resumed: the record's, not the machine's).
	if err := t.OS.Keep(t.Pending); err != nil {
		s.abandon()
		return nil, nil, err
	}
	if err := s.openState(live); err != nil {
		s.abandon()
		return nil, nil, err
	}
	if s.opt, err = search.New(space.Space, search.Options{Seed: s.state.Seed, WarmStart: s.warm}); err != nil {
		s.abandon()
		return nil, nil, err
	}
	// The start point against its own baseline is 1 by definition: no
	// trial is spent measuring that.
	_ = s.opt.Observe(start, 1, false)
	for _, tr := range s.state.Trials {
		_ = s.opt.Observe(tr.Point, tr.Value, tr.Failed)
	}
	return s, live, nil
}

// abandon gives up a search that changed nothing: the machine's lock of OS
// changes released, the record Begin wrote removed.
func (s *session) abandon() {
	if ok, _ := s.OS.Restore(nil); ok {
		_ = s.Pending.Abandon()
	}
}

// openState resumes the search's state, which must be over the same space,
// or creates a new one.
func (s *session) openState(live map[string]settings.Live) error {
	t := s.Tuner
	if t.Resume != nil {
		s.state = t.Resume
		if !sameDims(s.state.Dimensions, s.space.Dims()) {
			return fmt.Errorf("search %s was over another search space (a different server version, host, --allow-unsafe or --os): start a new one", s.state.ID)
		}
		return nil
	}
	s.state = &State{ID: t.ID, Seed: t.Seed, Workload: t.Workload.Name(), Objective: t.Objective, MaxP99: t.MaxP99,
		AllowUnsafe: t.AllowUnsafe, Budget: t.Budget, Trial: t.TrialTime, Dimensions: s.space.Dims(),
		Start: s.startSet, Advise: t.Advise, Started: time.Now().UTC(), Original: map[string]settings.Live{}}
	for _, n := range s.restoreNames() {
		if l, ok := live[n]; ok {
			s.state.Original[n] = l
		}
	}
	return s.state.Create(t.Lab)
}

// restore puts back the original value of every setting the search may
// have changed, injected ones included, and says so in res.
// The OS goes first (as an experiment's): a failure there keeps the record.
func (s *session) restore(ctx context.Context, live map[string]settings.Live, res *Result) {
	osBack := s.restoreOS(res)
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	if err := s.Server.Restore(rctx, live, s.restoreNames()); err != nil {
		res.Notes = append(res.Notes, "could NOT restore the original settings: "+err.Error()+"; the lab keeps them: run 'pgoltp restore'")
		return
	}
	res.Restored = osBack
	if !osBack {
		return // the record stays for 'pgoltp restore'
	}
	if err := s.Pending.Done(); err != nil {
		res.Notes = append(res.Notes, "settings restored, but their record stays in the lab: "+err.Error())
	}
}

// restoreNames are the server's settings the search may change, injected
// ones included (huge_pages with the hugepages dimension, which turns it on);
// the OS dimensions are the machine's, restored by restoreOS.
func (s *session) restoreNames() []string {
	names := pgNames(s.space.Names())
	if s.space.index(ossettings.Hugepages) >= 0 && !contains(names, "huge_pages") {
		names = append(names, "huge_pages")
	}
	for _, inj := range s.Inject {
		for n := range inj {
			if !contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// search prepares the workload (unless every run reloads it) and runs the
// trials left in the budget, each followed by a baseline run, saving the
// state after every trial. It stops early, marking res interrupted, when
// ctx ends.
func (s *session) search(ctx context.Context, res *Result) error {
	t := s.Tuner
	t.logf("search %s: %d settings%s, %s per trial, objective %s", s.state.ID, s.space.Len(), machineWideCount(s.space.Names()), t.TrialTime, t.Objective)
	t.logf("preparing %s", t.Workload.Name())
	// With Reload every measured run loads the data, the first baseline
	// too: loading it here as well would load it twice.
	if !t.Reload {
		if err := t.Workload.Prepare(s.ctx); err != nil {
			return fmt.Errorf("preparing the workload: %w", err)
		}
	}
	before, err := s.baseline(0)
	if err != nil {
		return err
	}
	best := 1.0
	for _, tr := range s.state.Trials {
		if !tr.Failed {
			best = math.Max(best, tr.Value)
		}
	}
	for n := len(s.state.Trials) + 1; n <= t.Budget; n++ {
		if ctx.Err() != nil {
			res.Interrupted = true
			break
		}
		tr, after, err := s.trial(n, before)
		if err != nil {
			return err
		}
		if !tr.Failed {
			best = math.Max(best, tr.Value)
		}
		tr.BestSoFar = best
		_ = s.opt.Observe(tr.Point, tr.Value, tr.Failed)
		s.state.Trials = append(s.state.Trials, tr)
		if err := s.state.Save(t.Lab); err != nil {
			return fmt.Errorf("saving the search state: %w", err)
		}
		s.store(res, record.Running)
		t.logTrial(tr)
		before = after
	}
	return nil
}

// trial n measures the optimiser's next suggestion and the baseline after
// it: its value is its level over the geometric mean of the baselines
// before and after (penalised over the p99 limit). It returns the trial and
// the baseline after it.
func (s *session) trial(n int, before float64) (Trial, float64, error) {
	t := s.Tuner
	p, err := s.space.Fit(s.opt.Suggest())
	if err != nil {
		return Trial{}, 0, err
	}
	values := s.space.Settings(p)
	if inj, ok := t.Inject[n]; ok {
		values = maps.Clone(values)
		maps.Copy(values, inj)
	}
	tr := Trial{N: n, Point: p, Settings: values}
	if u := Unsafe(s.major, values); len(u) > 0 && !t.AllowUnsafe {
		return tr, 0, fmt.Errorf("trial %d would set %s without --allow-unsafe", n, strings.Join(u, ", "))
	}
	m, restarted, runID, err := s.measure(values, RunInfo{Trial: n, Role: RoleTrial, Label: fmt.Sprintf("trial %d", n)})
	tr.Restart, tr.RunID = restarted, runID
	if err != nil {
		tr.Failed, tr.Error = true, oneLine(err.Error())
	}
	after, err := s.baseline(n)
	if err != nil {
		return tr, 0, err
	}
	if !tr.Failed {
		r := runOf(t.Objective, m)
		tr.Level, tr.TPS, tr.P99 = r.Level, m.TPS(), m.P99
		tr.Ratio = r.Level / math.Sqrt(before*after)
		tr.Value = tr.Ratio
		if t.MaxP99 > 0 && m.P99 > t.MaxP99 {
			// Over the latency limit: penalised by how far, so the
			// search still learns which way is better.
			tr.Value *= float64(t.MaxP99) / float64(m.P99)
		}
		if tr.Value <= 0 || math.IsNaN(tr.Value) {
			tr.Failed, tr.Error = true, "no transactions committed"
		}
	}
	return tr, after, nil
}

// confirm re-runs each candidate between baseline runs (rule), makes the
// best of them res.Best (compared with advise's configuration too) and says
// whether it beat the start when re-run.
func (s *session) confirm(res *Result, cands []search.Point) (better bool, err error) {
	t := s.Tuner
	t.logf("confirming the top %d candidates against the baseline", len(cands))
	bestIdx, bestEffect := -1, stats.Effect{}
	for i, c := range cands {
		e, err := s.paired(s.startSet, s.space.Settings(c), RoleConfirm, fmt.Sprintf("candidate %d", i+1))
		if errors.Is(err, errInterrupted) {
			res.Interrupted = true
			res.Notes = append(res.Notes, fmt.Sprintf("interrupted while re-running candidate %d of %d", i+1, len(cands)))
			break
		}
		if err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("candidate %d failed on re-run: %s", i+1, oneLine(err.Error())))
			continue
		}
		t.logf("candidate %d: %s", i+1, effectText(e))
		if bestIdx < 0 || e.Percent > bestEffect.Percent {
			bestIdx, bestEffect = i, e
		}
	}
	if bestIdx < 0 && res.Interrupted {
		// Nothing re-run yet: the search's best, as an interrupted search shows it.
		s.unproven(res, "the best so far is not confirmed by re-runs")
		return false, nil
	}
	if bestIdx < 0 {
		return false, errors.New("every candidate failed when re-run")
	}
	res.Best, res.VsStart, res.Confirmed = s.space.Settings(cands[bestIdx]), bestEffect, true
	if len(t.Advise) > 0 && len(s.warm) > 0 && !res.Interrupted {
		adv := s.space.Settings(s.warm[0])
		if maps.Equal(adv, res.Best) {
			// Trial 1 won: pairs of a configuration against itself would
			// only measure the machine's noise.
			res.BestIsAdvise = true
			t.logf("best vs advise: the best is advise's configuration (not compared with itself)")
		} else if e, err := s.paired(adv, res.Best, RoleAdvise, "best vs advise"); err == nil {
			res.VsAdvise = e
			t.logf("best vs advise: %s", effectText(e))
		} else if errors.Is(err, errInterrupted) {
			res.Interrupted = true
			res.Notes = append(res.Notes, "interrupted while comparing the best with advise's configuration")
		} else {
			res.Notes = append(res.Notes, "advise's configuration could not be compared: "+oneLine(err.Error()))
		}
	}
	if !bestEffect.Better() {
		// Lucky in the search, not shown better when re-run: keep the
		// start, and measure nothing more of a candidate that is no result
		// (an ablation of it would only add figures from noise).
		s.unproven(res, "no candidate was shown better than the start when re-run (its interval does not lie above zero)")
		return false, nil
	}
	return true, nil
}

// unproven makes the start the result: the best candidate's changes are
// listed as unproven, none is kept.
func (s *session) unproven(res *Result, why string) {
	res.Notes = append(res.Notes, why+": keep the starting settings")
	res.Unproven = changed(res.Best, s.startSet)
	res.Kept = map[string]string{}
	res.Unsafe = Unsafe(s.major, res.Unproven)
}

// forceUnproven applies the unproven candidate when both --apply and
// --force ask for it; --apply alone applies nothing, and the verdict says
// it refused. It says whether the candidate is now kept on the server.
func (s *session) forceUnproven(res *Result) (bool, error) {
	if !s.Apply || !s.Force || res.Interrupted || len(res.Unproven) == 0 {
		return false, nil
	}
	res.Notes = append(res.Notes, "--force: the unproven candidate is applied although it was not shown better than the start")
	return s.keep(res, res.Unproven, "applying the unproven candidate (--force)")
}

// baseline measures the start configuration and keeps its level.
func (s *session) baseline(n int) (float64, error) {
	m, _, id, err := s.measure(s.startSet, RunInfo{Trial: n, Role: RoleBaseline, Label: fmt.Sprintf("baseline after trial %d", n)})
	if err != nil {
		return 0, fmt.Errorf("baseline run: %w", err)
	}
	r := runOf(s.Objective, m)
	if s.Objective == ObjectivePerCPU && m.ServerCPU <= 0 {
		return 0, problem.BadInput("use --objective tps (or p99)", "objective per-cpu: the server's CPU cannot be read from /proc here (it runs on another host or in another container)")
	}
	if !(r.Level > 0) {
		return 0, errors.New("baseline run committed nothing")
	}
	s.state.Baselines = append(s.state.Baselines, r.Level)
	s.state.BaselineRuns = append(s.state.BaselineRuns, record.Baseline{After: n, Level: r.Level, TPS: m.TPS(), P99: m.P99, RunID: id})
	s.logf("  baseline %-3d %10.1f tps  p99 %s", len(s.state.Baselines), m.TPS(), m.P99.Round(10*time.Microsecond))
	return r.Level, nil
}

// measure applies values (every setting at once: one restart at most),
// reloads the data (Reload), refills the cache, checkpoints, prewarms, runs,
// and stores the run.
func (s *session) measure(values map[string]string, info RunInfo) (workload.Measurement, bool, string, error) {
	info.Search, info.Settings, info.Started = s.state.ID, values, time.Now()
	restarted, err := s.prepare(values, info.Role)
	var m workload.Measurement
	if err == nil {
		info.Started = time.Now() // the stored run is the measured part
		m, err = s.Workload.Run(s.ctx, s.TrialTime)
	}
	return m, restarted, s.record(info, m, err), err
}

// record stores a run when there is a recorder, and returns its id.
func (s *session) record(info RunInfo, m workload.Measurement, err error) string {
	if s.Recorder == nil {
		return ""
	}
	id, rerr := s.Recorder.Record(s.ctx, info, m, err)
	if rerr != nil && err == nil {
		s.logf("  could not store the run: %v", rerr)
	}
	return id
}

// prepare applies values (every setting at once: one restart at most),
// reloads the data (Reload, but not for the layout phase's runs), refills
// the cache after a restart or reload, checkpoints and prewarms: every
// measured run starts from the same state.
func (s *session) prepare(values map[string]string, role string) (restarted bool, err error) {
	pg := runSettings(values)
	if err := settings.CheckApplicable(pg); err != nil {
		return false, err
	}
	// The OS first: huge pages are reserved before the server starts with them.
	if err := s.applyOS(values, pg); err != nil {
		return false, err
	}
	restarted, err = s.Server.Apply(s.ctx, pg)
	reloaded := false
	if err == nil && s.Reload && role != RoleLayout {
		// The layout phase's runs keep the tables it has just rewritten.
		if err = s.Workload.Prepare(s.ctx); err != nil {
			err = fmt.Errorf("reloading the data: %w", err)
		}
		reloaded = err == nil
	}
	if err == nil && (restarted || reloaded) {
		s.warmCache()
	}
	if err == nil {
		s.checkpoint()
	}
	if err == nil && s.Prewarm > 0 {
		_, err = s.Workload.Run(s.ctx, s.Prewarm)
		if err != nil {
			err = fmt.Errorf("prewarm: %w", err)
		}
	}
	return restarted, err
}

// checkpoint starts the run at the same point of the checkpoint cycle as
// every other (Checkpointer). A failure is logged once and not tried again.
func (s *session) checkpoint() {
	c, ok := s.Server.(Checkpointer)
	if !ok || s.checkpointFailed {
		return
	}
	if err := c.Checkpoint(s.ctx); err != nil {
		s.checkpointFailed = true
		s.logf("  runs not aligned on a checkpoint (%v): a checkpoint landing in one run adds noise", oneLine(err.Error()))
	}
}

// warmCache refills shared buffers after a restart, when the server can.
// A failure is logged once and the prewarm run is left to warm alone.
func (s *session) warmCache() {
	w, ok := s.Server.(CacheWarmer)
	if !ok || s.warmFailed {
		return
	}
	if _, err := w.WarmCache(s.ctx); err != nil {
		s.warmFailed = true
		s.logf("  cache not refilled after the restart (%v): trials that restart start colder than the baseline", oneLine(err.Error()))
	}
}

// errInterrupted: Ctrl-C came during the re-runs. No new run starts; the
// runs so far stand, and the settings are restored.
var errInterrupted = errors.New("interrupted")

// rule is how long a comparison goes on (as an experiment's 'repetitions:
// auto'): pairs until the interval excludes zero or lies within
// ±--min-effect, 2 to --max-pairs pairs (5 by default), each look
// Bonferroni-corrected so that the verdict holds at 95% overall. Two fixed
// pairs were too few on a shared machine: the interval of a +10% effect
// spanned zero.
func (s *session) rule() stats.Sequential {
	r := stats.Sequential{MinPairs: confirmMinPairs, MaxPairs: s.MaxPairs, MinEffect: s.MinEffect, Confidence: level}
	if r.MaxPairs == 0 {
		r.MaxPairs = 5
	}
	if r.MinEffect == 0 {
		r.MinEffect = 5
	}
	return r
}

// confirmMinPairs is the fewest pairs a comparison looks at.
const confirmMinPairs = 2

// planText says, before a comparison starts, how many pairs it expects to
// need for ±--min-effect given the run-to-run noise of the baseline runs so
// far (issue 29.4).
func (s *session) planText(label string) string {
	r := s.rule()
	sd := stats.RunSD(s.state.Baselines)
	if math.IsNaN(sd) {
		return fmt.Sprintf("  %s: no run-to-run noise measured yet; 2 to %d pairs, until the interval excludes zero or lies within ±%g%%", label, r.MaxPairs, r.MinEffect)
	}
	n, ok := r.Plan(sd)
	if !ok {
		return fmt.Sprintf("  %s: expects more than %d pairs to resolve ±%g%% (run-to-run noise ±%.1f%% from %d baseline runs): it may end undecided; raise --max-pairs or --min-effect",
			label, r.MaxPairs, r.MinEffect, 100*math.Expm1(sd), len(s.state.Baselines))
	}
	return fmt.Sprintf("  %s: expects %d pairs to resolve ±%g%% (run-to-run noise ±%.1f%% from %d baseline runs; at most %d pairs)",
		label, n, r.MinEffect, 100*math.Expm1(sd), len(s.state.Baselines), r.MaxPairs)
}

// paired runs A B A B … A, adding pairs until rule stops, and returns
// B's effect against A at the rule's level for each look.
func (s *session) paired(a, b map[string]string, role, label string) (stats.Effect, error) {
	if design, _ := s.designFor(a, b); design == DesignSwitchback { // issue 29.1
		return s.switchbackPaired(a, b, role, label)
	}
	var ma, mb []workload.Measurement
	measure := func(values map[string]string, label string, into *[]workload.Measurement) (stats.Run, error) {
		if s.outer.Err() != nil {
			return stats.Run{}, errInterrupted
		}
		m, _, _, err := s.measure(values, RunInfo{Role: role, Label: label})
		*into = append(*into, m)
		return runOf(s.Objective, m), err
	}
	s.logf("%s", s.planText(label))
	first, err := measure(a, label+" (reference)", &ma)
	if err != nil {
		return stats.Effect{}, err
	}
	as, bs := []stats.Run{first}, []stats.Run(nil)
	for {
		rb, err := measure(b, label, &mb)
		if err != nil {
			return stats.Effect{}, err
		}
		ra, err := measure(a, label+" (reference)", &ma)
		if err != nil {
			return stats.Effect{}, err
		}
		as, bs = append(as, ra), append(bs, rb)
		u := stats.Paired(as, bs, s.rule().LookLevel())
		adj := adjusted(ma, mb, as, bs, u) // issue 29.2
		if stop, why := s.rule().Stop(adj.Effect); stop {
			s.logf("  %s: stopped after %d pairs: %s%s", label, u.Pairs, why, adjustedText(u, adj))
			return adj.Effect, nil
		}
	}
}

// ablate measures the best configuration without each changed setting
// (that setting at its start value) in pairs against the best itself, as
// confirmation does (rule). One "without" run between two runs of the
// best was too few: with one pair only the runs' own per-second noise gives
// the interval, not the drift between runs, and on a shared machine settings
// that do nothing were measured as worth ±20% and kept.
func (s *session) ablate(best map[string]string) ([]Contribution, error) {
	diff := changed(best, s.startSet)
	names := sortedKeys(diff)
	// Largest changes first, when only some can be measured.
	sort.SliceStable(names, func(i, j int) bool { return s.change(names[i], best) > s.change(names[j], best) })
	var out []Contribution
	for _, n := range names {
		out = append(out, Contribution{Name: n, Value: best[n], Start: s.startSet[n], Kept: true})
	}
	limit := len(out)
	if s.Ablation > 0 && s.Ablation < limit {
		limit = s.Ablation
	}
	if limit == 0 {
		return out, nil
	}
	s.logf("ablation: the best without each of %d settings", limit)
	for i := 0; i < limit; i++ {
		without := maps.Clone(best)
		without[out[i].Name] = out[i].Start
		e, err := s.paired(best, without, RoleAblation, "best without "+out[i].Name)
		if errors.Is(err, errInterrupted) {
			return out, fmt.Errorf("interrupted after %d of %d settings", i, limit)
		}
		if err != nil {
			return out, err
		}
		out[i].Removal, out[i].Measured = e, true
		out[i].Design, _ = s.designFor(best, without)
		// Dropped only when its removal was measured and did not
		// measurably hurt; without an interval it stays.
		out[i].Kept = !e.Valid || e.Worse()
		s.logf("  without %-32s %s", out[i].Name, effectText(e))
	}
	return out, nil
}

// change is how far a setting moved from the start, on the search scale.
func (s *session) change(name string, best map[string]string) float64 {
	i := s.space.index(name)
	if i < 0 {
		return 0
	}
	p, err := s.space.PointOf(best, s.start)
	if err != nil {
		return 0
	}
	d := s.space.Dims()[i]
	if d.Kind == search.Categorical {
		return 0.5
	}
	lo, hi, a, b := d.Low, d.High, p[i], s.start[i]
	if d.Log && lo > 0 {
		lo, hi, a, b = math.Log(lo), math.Log(hi), math.Log(math.Max(a, 1e-9)), math.Log(math.Max(b, 1e-9))
	}
	if hi == lo {
		return 0
	}
	return math.Abs(a-b) / (hi - lo)
}

// candidatesFrom is the top k points that never failed other than the
// start; with mustBeat only those that beat the start in the search.
func candidatesFrom(opt *search.Optimizer, start search.Point, k int, mustBeat bool) []search.Point {
	var out []search.Point
	for _, r := range opt.TopK(k + 1) {
		if samePoint(r.Point, start) || mustBeat && r.Mean <= 1 { // 1: the start against its own baseline
			continue
		}
		out = append(out, r.Point)
		if len(out) == k {
			break
		}
	}
	return out
}

func samePoint(a, b search.Point) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sameDims(a, b []search.Dimension) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Kind != b[i].Kind || a[i].Low != b[i].Low || a[i].High != b[i].High ||
			a[i].Log != b[i].Log || strings.Join(a[i].Choices, ",") != strings.Join(b[i].Choices, ",") {
			return false
		}
	}
	return true
}

// changed is the settings of values that differ from start.
func changed(values, start map[string]string) map[string]string {
	out := map[string]string{}
	for n, v := range values {
		if start[n] != v {
			out[n] = v
		}
	}
	return out
}

// withStart is the start configuration with values on top.
func withStart(values, start map[string]string) map[string]string {
	out := maps.Clone(start)
	maps.Copy(out, values)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func (t *Tuner) logf(format string, args ...any) {
	if t.Log != nil {
		fmt.Fprintf(t.Log, format+"\n", args...)
	}
}

func (t *Tuner) logTrial(tr Trial) {
	if tr.Failed {
		t.logf("trial %-3d FAILED: %s (best so far %.3f×)", tr.N, tr.Error, tr.BestSoFar)
		return
	}
	restart := ""
	if tr.Restart {
		restart = " (restarted)"
	}
	t.logf("trial %-3d %10.1f tps  p99 %-9s %.3f× baseline  best so far %.3f×%s", tr.N, tr.TPS,
		tr.P99.Round(10*time.Microsecond), tr.Ratio, tr.BestSoFar, restart)
}

// effectText is "+12.3% (95% CI +5.1% .. +19.9%)".
func effectText(e stats.Effect) string {
	if !e.Valid {
		return "no interval (too few runs)"
	}
	return fmt.Sprintf("%+.1f%% (95%% CI %+.1f%% .. %+.1f%%)", e.Percent, e.Low, e.High)
}
