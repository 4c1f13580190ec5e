package tune

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/pgoltp/pgoltp/internal/advise"
	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/host"
	"github.com/pgoltp/pgoltp/internal/ossettings"
	"github.com/pgoltp/pgoltp/internal/pending"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/restore"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Resumed applies --resume to o: the stored search's seed, objective,
// safety, trial length and p99 limit, and its budget unless budgetSet. It
// returns nil without --resume, and refuses a search of another workload
// than name.
func (o *Options) Resumed(lab string, budgetSet bool, name string) (*State, error) {
	if o.Resume == "" {
		return nil, nil
	}
	id := o.Resume
	if id == "latest" {
		id = ""
	}
	s, err := Load(lab, id)
	if err != nil {
		return nil, problem.BadInput("run 'pgoltp tune' without --resume to start a search", "cannot resume: %v", err)
	}
	o.Seed, o.Objective, o.AllowUnsafe, o.Trial, o.MaxP99 = s.Seed, s.Objective, s.AllowUnsafe, s.Trial, s.MaxP99
	if !budgetSet {
		o.Budget = s.Budget
	}
	o.OS = o.OS || s.hasOS() // its OS dimensions again (refused without --allow-os)
	if s.Workload != name {
		return nil, problem.BadInput("give the same --workload, --scale/--warehouses and --clients as the search had",
			"search %s ran %s, not %s", s.ID, s.Workload, name)
	}
	return s, nil
}

// Setup is what `pgoltp tune` hands the tuner: its checked options, the
// search it resumes, the workload, the server to tune (the managed cluster or
// an external one) with the database to run in, and where runs are kept.
type Setup struct {
	Options
	Resume          *State
	Workload        workload.Workload
	Server          restore.Server
	DSN             string
	Lab, ResultsDSN string
	Log             io.Writer
	Pending         *pending.Guard // the lab's record of the original settings
	// OnInterval gets every run's intervals, as they come (the live
	// endpoint, --metrics-addr); nil: none.
	OnInterval workload.IntervalFunc
	// Remote describes the server when it is not on this machine ("" when
	// it is): OS dimensions (Options.OS) are refused then.
	Remote string
}

// New reads the server and advise's configuration for it, and returns the
// tuner ready to run the search.
func New(ctx context.Context, s Setup) (*Tuner, error) {
	server := ServerOf(s.Server, s.DSN)
	dataDir := "/"
	c, managed := s.Server.(*cluster.Cluster)
	if managed {
		dataDir = c.DataDir
	}
	host := host.DetectHost(dataDir)
	if managed {
		host.MeasureFlush(c.Lab, dataDir) // the lab is pgoltp's: the probe file goes there
	}
	limits := Limits{RAM: host.RAM, CPUs: host.CPUs, HugePagesTotal: host.HugePagesTotal, NoRestart: !managed}
	if !managed {
		fmt.Fprintln(s.Log, "--dsn: settings that need a restart are left out (pgoltp does not restart a server it does not manage)")
	}
	live, major, err := server.Read(ctx)
	if err != nil {
		return nil, err
	}
	live = s.Resume.originals(live) // never a killed trial's leftovers
	advice, err := advise.Advise(advise.AdviseInput{Host: host, Connections: s.Clients, Workload: s.Options.Workload, HotRows: s.Options.kind().HotRows, Major: major, Live: live})
	if err != nil {
		return nil, problem.Failed("advise: %v", err)
	}
	osSearch, err := prepareOS(s, live, managed)
	if err != nil {
		return nil, err
	}
	id := "tune-" + time.Now().UTC().Format("20060102T150405Z")
	if s.Resume != nil {
		id = s.Resume.ID
	}
	t := &Tuner{
		Server: server, Workload: tunedWorkload{w: s.Workload, dsn: s.DSN, onInterval: s.OnInterval}, Lab: s.Lab, Limits: limits,
		Recorder: StoreRecorder{Lab: s.Lab, ResultsDSN: s.ResultsDSN, Kind: s.Options.Workload, Workload: s.Workload.Name()},
		ID:       id, Seed: s.Seed, Objective: s.Objective, MaxP99: s.MaxP99, AllowUnsafe: s.AllowUnsafe,
		Budget: s.Budget, TrialTime: s.Trial, Prewarm: s.Prewarm, Reload: s.Reload, Advise: advice.Settings(),
		Confirm: s.Confirm, MinEffect: s.MinEffect, MaxPairs: s.MaxPairs, Ablation: s.Ablation, Apply: s.Apply, Force: s.Force, Format: s.Format, Design: s.Design, Resume: s.Resume, Log: s.Log, Inject: s.inject, Pending: s.Pending, OS: osSearch,
	}
	if s.Layout {
		if t.Layout, err = TablesOf(s.Workload, s.DSN); err != nil {
			return nil, problem.BadInput("run tune without --layout", "%v", err)
		}
	}
	return t, nil
}

// prepareOS is the OS side of a search with --os (nil without): refused
// without root, --allow-os or a server on this machine; the keys this
// machine does not let pgoltp write are said up front, each with why.
// Resumed, the dimensions start where the stored search started, never at
// what the machine shows now.
func prepareOS(s Setup, live map[string]settings.Live, managed bool) (*ossettings.Search, error) {
	if !s.Options.OS {
		return nil, nil
	}
	var start map[string]string
	if s.Resume != nil {
		start = s.Resume.Start
	}
	side, err := ossettings.PrepareSearch(ossettings.SearchOptions{Options: ossettings.Options{Allow: s.AllowOS, Remote: s.Remote},
		Restart: managed, Start: start}, live)
	if err != nil {
		return nil, err
	}
	for _, why := range side.Refused {
		fmt.Fprintf(s.Log, "--os: left out of the search: %s\n", why)
	}
	return side, nil
}

// Verdict is how a search ends for the command: a failure when the original
// settings could not be restored, when the search stopped (how to resume it)
// or was interrupted.
func (t *Tuner) Verdict(res *Result, runErr error) error {
	if res != nil && !res.Restored && !res.Applied {
		return problem.Failed("the original settings could NOT be restored (see the note above): run 'pgoltp restore'")
	}
	if runErr != nil {
		if p, ok := runErr.(*problem.Problem); ok {
			return p
		}
		return problem.Failed("tune stopped: %v (resume with 'pgoltp tune --resume %s')", runErr, t.ID)
	}
	if res.Interrupted {
		return problem.Failed("tune interrupted; the best so far is shown above; continue with 'pgoltp tune --resume %s'", t.ID)
	}
	return t.refusal(res)
}

// refusal fails a search whose best was not shown better than the start
// when --apply or --format asked for its result without --force: the
// result is the starting settings, so nothing was applied or written.
func (t *Tuner) refusal(res *Result) error {
	if res.Shown() || t.Force || (!t.Apply && t.Format == "") || len(res.Unproven) == 0 {
		return nil
	}
	what := "--apply"
	if !t.Apply {
		what = "--format " + t.Format
	} else if t.Format != "" {
		what += " and --format " + t.Format
	}
	return problem.Failed("%s refused: the best was not shown better than the start, so the result is the starting settings (rerun with more --confirm or a longer --trial, or add --force to take the unproven candidate)", what)
}
