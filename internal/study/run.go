package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Database is the database a study loads and runs in on each major's cluster.
const Database = "pgoltp"

// Bench is the study's workload as the caller supplies it (the registry's):
// study itself names no workload.
type Bench interface {
	// Load makes dsn hold the workload's data, reusing a load of the same size.
	Load(ctx context.Context, dsn string) error
	// Workload is the workload of one run: compared, not checked.
	Workload() (workload.Workload, error)
	// Figures are what the study compares of one run's result.
	Figures(res *workload.Result) workload.Figures
}

// Study runs the workload on each major, each in its own managed cluster
// under Lab (Lab/pg10, Lab/pg15, ...), the majors interleaved when repeated.
type Study struct {
	Options
	Lab    string
	Bench  Bench
	Record recorder.Options // where runs are stored; the study adds its parameters
	Log    io.Writer        // what the study does; nil: quiet
	// Progress gets the clusters' progress (downloads, initdb); nil: quiet.
	Progress io.Writer
}

// target is one major's (or build's) cluster, ready to run on.
type target struct {
	arm
	version string
	dsn     string
	facts   []cluster.Fact // its installation, recorded with each run
}

// arm is what a study compares: a major, or a build of one.
type arm struct {
	major int
	build string // "" for a major's default binaries
}

// arms are the study's: its builds, or else its majors.
func (o *Options) arms() []arm {
	var arms []arm
	for _, b := range o.Builds {
		arms = append(arms, arm{major: o.Majors[0], build: b})
	}
	if len(arms) > 0 {
		return arms
	}
	for _, m := range o.Majors {
		arms = append(arms, arm{major: m})
	}
	return arms
}

// String names the arm as the study's lines do.
func (a arm) String() string {
	if a.build != "" {
		return "build " + a.build
	}
	return fmt.Sprintf("PostgreSQL %d", a.major)
}

// lab is the arm's own lab under the study's: pg15, build-o3-native.
func (a arm) lab(under string) string {
	if a.build != "" {
		return filepath.Join(under, "build-"+a.build)
	}
	return filepath.Join(under, fmt.Sprintf("pg%d", a.major))
}

// Run prepares every major's cluster, runs the repetitions interleaved
// (and, when repeated, a closing run of the first arm: the verdicts' pairs)
// and compares them.
func (s *Study) Run(ctx context.Context) (_ *Comparison, _ []Run, err error) {
	arms := s.arms()
	targets := make([]target, 0, len(arms))
	var changes []*changed
	// The clusters' own settings come back whatever happens: the next
	// study (with other --set values or none) starts from them.
	defer func() { err = errors.Join(err, s.restoreSettings(ctx, changes)) }()
	for _, a := range arms {
		t, ch, err := s.prepare(ctx, a)
		if ch != nil {
			changes = append(changes, ch)
		}
		if err != nil {
			return nil, nil, err
		}
		targets = append(targets, t)
	}
	var runs []Run
	for rep := 1; rep <= s.Repetitions; rep++ {
		for _, t := range targets {
			s.say("== run %d/%d on %s (PostgreSQL %s)", rep, s.Repetitions, t.arm, t.version)
			r, err := s.runOnce(ctx, t, rep)
			if err != nil {
				return nil, runs, fmt.Errorf("%s, run %d: %w", t.arm, rep, err)
			}
			runs = append(runs, r)
		}
	}
	if s.Repetitions >= 2 {
		// A closing run of the first arm: every other arm's last run then
		// has a run of the first arm after it too, as each of its earlier
		// runs has, and the verdict's pairs cancel a drift on both sides.
		t, rep := targets[0], s.Repetitions+1
		s.say("== closing run on %s (PostgreSQL %s): the last pairs' second baseline", t.arm, t.version)
		r, err := s.runOnce(ctx, t, rep)
		if err != nil {
			return nil, runs, fmt.Errorf("%s, closing run: %w", t.arm, err)
		}
		runs = append(runs, r)
	}
	c := Compare(s.Workload, s.Translations(), runs)
	return &c, runs, nil
}

func (s *Study) say(format string, args ...any) {
	if s.Log != nil {
		fmt.Fprintf(s.Log, format+"\n", args...)
	}
}

// prepare brings up the arm's cluster in Lab/pgNN (Lab/build-NAME), applies
// the settings and loads the workload (once: a repeated study reuses the
// load).
func (s *Study) prepare(ctx context.Context, a arm) (target, *changed, error) {
	lab := a.lab(s.Lab)
	unlock, err := cluster.LockLab(lab, "compare-versions", cluster.DefaultLockWait)
	if err != nil {
		return target{}, nil, err
	}
	defer unlock()
	s.say("== %s in %s", a, lab)
	c, err := cluster.Ready(ctx, cluster.Options{Lab: lab, Major: a.major, Build: a.build, Progress: s.Progress}, "compare-versions", Database)
	if err != nil {
		return target{}, nil, err
	}
	ch, err := s.applySettings(ctx, c, lab, s.settings(a.major))
	if err != nil {
		return target{}, ch, err
	}
	dsn := c.DSN(Database)
	if err := s.Bench.Load(ctx, dsn); err != nil {
		return target{}, ch, fmt.Errorf("%s load on %s: %w", s.Workload, a, err)
	}
	return target{arm: a, version: c.Version, dsn: dsn, facts: c.Facts()}, ch, nil
}

// settings are the --set values as major takes them.
func (s *Study) settings(major int) map[string]string {
	apply := map[string]string{}
	for _, t := range s.PerMajor[major] {
		if t.Name != "" {
			apply[t.Name] = t.Value
		}
	}
	return apply
}

// runOnce runs the workload once on t, recorded, and measures what it did to
// the server.
func (s *Study) runOnce(ctx context.Context, t target, rep int) (Run, error) {
	r := Run{Major: t.major, Build: t.build, Version: t.version, Repetition: rep}
	before, err := Read(ctx, t.dsn, t.major, false)
	if err != nil {
		return r, fmt.Errorf("reading the server's statistics: %w", err)
	}
	w, err := s.Bench.Workload()
	if err != nil {
		return r, err
	}
	params := []workload.Param{
		{Name: "postgres major", Value: strconv.Itoa(t.major)},
		{Name: "postgres version", Value: t.version},
		{Name: "compare-versions", Value: s.MajorsList()},
		{Name: "repetition", Value: repetitionLabel(rep, s.Repetitions)}}
	if len(s.Builds) > 0 {
		params[2] = workload.Param{Name: "compare-builds", Value: strings.Join(s.Builds, ",")}
	}
	for _, f := range t.facts {
		params = append(params, workload.Param{Name: f.Name, Value: f.Value})
	}
	for _, tr := range s.PerMajor[t.major] {
		if tr.Name != "" {
			params = append(params, workload.Param{Name: "set " + tr.Name, Value: tr.Value})
		}
	}
	opts := s.Record
	opts.Params = params
	out, err := recorder.Run(ctx, t.dsn, w, opts)
	if out != nil {
		r.RunID = out.RunID
	}
	if out != nil && out.Result != nil {
		f := s.Bench.Figures(out.Result)
		r.Txns, r.TPS, r.P50, r.P95, r.P99 = f.Txns, f.TPS, ms(f.P50), ms(f.P95), ms(f.P99)
		r.PerSecond = out.Result.PerSecond
	}
	if err != nil {
		return r, err
	}
	if out.Stored != nil && out.Stored.Samples != nil {
		r.Statements = out.Stored.Samples.Statements
	}
	after, err := Read(ctx, t.dsn, t.major, true)
	if err != nil {
		return r, fmt.Errorf("reading the server's statistics: %w", err)
	}
	r.Effect = after.Sub(before)
	return r, nil
}

// repetitionLabel is a run's repetition as its stored parameter says it:
// the one past the last is the study's closing run of the first arm.
func repetitionLabel(rep, of int) string {
	if rep > of {
		return strconv.Itoa(rep) + " (closing run: the last pairs' second baseline)"
	}
	return strconv.Itoa(rep)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
