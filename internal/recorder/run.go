package recorder

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/group"
	"github.com/pgoltp/pgoltp/internal/livemetrics"
	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Options say where runs are kept and what to say while recording.
type Options struct {
	Lab, ResultsDSN string // the results store (store.Open)
	// NoRecord runs and checks without storing anything (bare driver-CPU
	// measurements).
	NoRecord bool
	Collect  collect.Options
	// Params are stored after the workload's own (a study's repetition, ...).
	Params []workload.Param
	// Log, if set, gets "checking consistency..." and where the run was stored.
	Log io.Writer
	// Duration, if set, is the run's length, replacing the workload's own
	// (a sweep's points, each as long as the others).
	Duration time.Duration
	// Live, if set, is fed every interval of the run and the collectors'
	// latest samples as they come (the --metrics-addr endpoint).
	Live *livemetrics.Exporter
	// StartedAt, if set, is when the run began: a run made earlier and
	// imported (its series is placed on its own time axis).
	StartedAt time.Time
	// Group, when its Name is set, makes the run one part of a group
	// (internal/group): it registers in the results store, waits for the
	// other parts, starts at the agreed time, and checks the database only
	// if it is the last part to finish.
	Group group.Options
	// DataDSN, if set, is where the workload's connections go (a pooler in
	// front of the server, issue 31): readiness, collectors and the check
	// still connect straight to dsn.
	DataDSN string
}

// Outcome is what a recorded run produced.
type Outcome struct {
	Result *workload.Result // nil when the run could not start
	Check  *workload.Check  // nil when not checked (interrupted, failed, or the workload checks nothing)
	RunID  string           // "" when not recorded
	Stored *store.Run       // what was stored, samples included; nil when not recorded
}

// Run is the sequence every recorded command shares: refuse a database that
// is not ready before anything is stored, store the run as running with the
// collectors sampling dsn, run w, check the database unless the run failed or
// was interrupted, and store the whole run with its status. A run that failed
// or was interrupted is still stored, with that status; the error returned is
// the run's, else the store's.
func Run(ctx context.Context, dsn string, w workload.Workload, opts Options) (*Outcome, error) {
	if r, ok := w.(workload.Ready); ok {
		if err := r.Ready(ctx, dsn); err != nil {
			return nil, err
		}
	}
	var rec *Recording
	run := &store.Run{Workload: w.Kind(), Title: w.Name(), StartedAt: time.Now()}
	if !opts.StartedAt.IsZero() {
		run.StartedAt = opts.StartedAt
	}
	var member *group.Member
	if opts.Group.Name != "" {
		var err error
		if member, err = joinGroup(ctx, w, run, opts); err != nil {
			return nil, err
		}
		defer member.Close()
	}
	if !opts.NoRecord {
		var err error
		if rec, err = Begin(ctx, opts.Lab, opts.ResultsDSN, dsn, run, opts.Collect); err != nil {
			return nil, fmt.Errorf("opening the results store: %w", err)
		}
	}
	out := &Outcome{}
	ro := workload.RunOptions{Duration: opts.Duration, OnInterval: intervalsTo(rec, opts.Live, run)}
	dataDSN := dsn
	if opts.DataDSN != "" {
		dataDSN = opts.DataDSN
	}
	res, runErr := w.Run(ctx, dataDSN, ro)
	out.Result = res
	interrupted := ctx.Err() != nil || (res != nil && res.Interrupted)
	var notes []string
	check := true
	if member != nil {
		var note string
		check, note = member.Finished(ctx, statusOf(interrupted, runErr))
		notes = append(notes, note)
	}
	if runErr == nil && !interrupted && check {
		if u, ok := w.(workload.Unchecked); opts.Log != nil && !(ok && u.Unchecked()) {
			fmt.Fprintln(opts.Log, "checking consistency...")
		}
		chk, err := w.Check(ctx, dsn)
		if err != nil {
			notes = append(notes, "consistency check could not run: "+err.Error())
		}
		out.Check = chk
	}
	if runErr != nil {
		notes = append(notes, "run failed: "+runErr.Error())
	}
	if rec == nil {
		return out, runErr
	}
	fillRun(run, out, opts, member != nil, notes)
	status := statusOf(interrupted, runErr)
	id, storeErr := rec.Finish(ctx, status)
	out.RunID, out.Stored = id, run
	if storeErr != nil {
		storeErr = fmt.Errorf("storing run %s: %w", id, storeErr)
	} else if opts.Log != nil {
		fmt.Fprintf(opts.Log, "run %s stored (%s); 'pgoltp report %s' writes its report\n", id, status, id)
	}
	if runErr != nil {
		return out, runErr
	}
	return out, storeErr
}

// intervalsTo is where the run's intervals go: the recording, the live
// endpoint, both or neither (nil).
func intervalsTo(rec *Recording, live *livemetrics.Exporter, run *store.Run) workload.IntervalFunc {
	if live != nil {
		live.SetRunID(run.ID)
		if rec != nil && rec.sess != nil {
			live.SetCollected(rec.sess.Latest)
			live.SetMajor(rec.sess.Major())
		}
	}
	switch {
	case rec != nil && live != nil:
		return func(s *metrics.Snapshot, ec string) { rec.AddInterval(s, ec); live.Interval(s, ec) }
	case rec != nil:
		return rec.AddInterval
	case live != nil:
		return live.Interval
	}
	return nil
}

// fillRun completes the stored run with what the workload measured, the
// options' parameters (and the group's, for a part), the check's figures
// and the notes.
func fillRun(run *store.Run, out *Outcome, opts Options, grouped bool, notes []string) {
	res := out.Result
	if res != nil {
		Fill(run, res)
	}
	for _, p := range opts.Params {
		run.Params = append(run.Params, store.KV{Name: p.Name, Value: p.Value})
	}
	if grouped && res != nil {
		run.Params = append(run.Params, group.Params(opts.Group.Name, res.Rate)...)
	}
	if out.Check != nil {
		run.Headline = append(run.Headline, storeFigures(out.Check.Headline)...)
		run.Notes = append(run.Notes, out.Check.Note)
	}
	run.Notes = append(run.Notes, notes...)
}

// joinGroup registers the run as a part of its group and waits for all
// parts, before anything is stored: a part that is late, or whose group
// never gathered, stores no run. The workload then waits at the gate for the
// agreed start, with its connections open.
func joinGroup(ctx context.Context, w workload.Workload, run *store.Run, opts Options) (*group.Member, error) {
	gated, ok := w.(workload.Gated)
	if !ok {
		return nil, fmt.Errorf("workload %s cannot run as a part of a group", w.Kind())
	}
	if opts.NoRecord {
		return nil, fmt.Errorf("a part of a group is recorded: the group meets in the results store")
	}
	g := opts.Group
	g.Lab, g.ResultsDSN = opts.Lab, opts.ResultsDSN
	if g.Log == nil {
		g.Log = opts.Log
	}
	if gp, ok := w.(workload.GroupParams); ok {
		g.Params = gp.SharedParams()
	}
	run.ID = store.NewID(run.StartedAt)
	m, err := group.Join(ctx, g, w.Kind(), run.ID)
	if err != nil {
		return nil, err
	}
	if err := m.WaitAll(ctx); err != nil {
		m.Close()
		return nil, err
	}
	// The run's time axis is the group's, from the first stored interval:
	// its series line up with the other parts' on the store's clock.
	run.StartedAt = m.LocalStart()
	gated.SetStartGate(m.Gate)
	return m, nil
}

// statusOf maps how a run ended to its stored status.
func statusOf(interrupted bool, err error) store.Status {
	switch {
	case err != nil:
		return store.Failed
	case interrupted:
		return store.Interrupted
	}
	return store.Complete
}

// Fill copies a workload's result into the stored run: the one mapping from
// any workload to the store.
func Fill(run *store.Run, res *workload.Result) {
	run.Params = run.Params[:0]
	for _, p := range res.Params {
		run.Params = append(run.Params, store.KV{Name: p.Name, Value: p.Value})
	}
	run.Headline = storeFigures(res.Headline)
	run.Latency = res.Latency
	run.Series = Intervals(res.Series, run.StartedAt, res.ErrorCounter)
	run.Notes = append(run.Notes, res.Notes...)
	run.MeasureStart, run.MeasureEnd, run.EndedAt = res.MeasureStart, res.MeasureEnd, res.End
	run.Tallies = run.Tallies[:0]
	for _, t := range res.Tallies {
		run.Tallies = append(run.Tallies, store.Tally{Name: t.Name, Count: t.Count, Of: t.Of, Scale: t.Scale,
			Expected: t.Expected, SD: t.SD, Low: t.Low, High: t.High, Allow: t.Allow})
	}
}

func storeFigures(fs []workload.Figure) []store.Figure {
	out := make([]store.Figure, len(fs))
	for i, f := range fs {
		out[i] = store.Figure{Name: f.Name, Value: f.Value, Unit: f.Unit}
	}
	return out
}
