package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/report"
	"github.com/pgoltp/pgoltp/internal/runfile"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/study"
	"github.com/pgoltp/pgoltp/internal/tune"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/tpcb"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// versionStudy is what 'pgoltp compare-versions' was asked to do.
type versionStudy struct {
	study.Options
	html string // also write an HTML comparison of every run here
}

func init() {
	var (
		pg, duration string
		v            versionStudy
	)
	cmd := &cobra.Command{
		Use:   "compare-versions",
		Short: "run the same workload on several PostgreSQL majors and compare them",
		Long: `Runs one workload with the same data size, settings and duration on each
PostgreSQL major, each in its own managed cluster under the lab (LAB/pg10,
LAB/pg15, ...), interleaving the majors when repeated (10, 15, 18, 10, 15, 18,
...). Every run is stored in the results store. Settings whose names changed
between majors are translated (wal_keep_size is wal_keep_segments before 13),
and the translation is shown. The comparison gives throughput and latency
percentiles with 95% intervals across repetitions, database and index growth
per million transactions, WAL bytes per transaction, the HOT-update share, dead
tuples, autovacuum runs, checkpoints, and the top statements side by side.`,
		Example: `  pgoltp compare-versions --pg 10,15,18 --workload tpcb --scale 10 --duration 60s --repetitions 3
  pgoltp compare-versions --pg 13,17 --workload tpcc --warehouses 2 --set max_wal_size=4GB --duration 5m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := v.parse(pg, duration); err != nil {
				return err
			}
			if global.dsn != "" {
				return problem.BadInput("drop --dsn: compare-versions runs each major in a managed cluster of its own",
					"compare-versions cannot use an external server")
			}
			return v.run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringVar(&pg, "pg", "", "PostgreSQL majors to compare, comma-separated (10 to 18), e.g. 10,15,18")
	f.StringVar(&v.Workload, "workload", "tpcb", "tpcb or tpcc")
	f.IntVar(&v.Scale, "scale", 1, "TPC-B scale factor")
	f.IntVar(&v.Warehouses, "warehouses", 1, "TPC-C warehouses")
	f.IntVarP(&v.Clients, "clients", "c", 4, "client connections")
	f.StringVar(&duration, "duration", "30s", "length of each run")
	f.IntVar(&v.Repetitions, "repetitions", 1, "runs per major, interleaved across majors")
	f.StringArrayVar(&v.Sets, "set", nil, "a server setting name=value applied on every major (repeatable)")
	f.StringVarP(&v.html, "output", "o", "", "also write the stored runs side by side as an HTML page (pgoltp compare's view) to this file")
	rootCmd.AddCommand(cmd)
}

// parse checks every flag before any cluster is touched.
func (v *versionStudy) parse(pg, duration string) (err error) {
	if v.Majors, err = study.ParseMajors(pg); err != nil {
		return err
	}
	v.DurationText = duration
	if d, err := tpcb.ParseDuration(duration, time.Second); err == nil {
		v.Duration = d
	}
	return v.Validate()
}

// runVersionPlan runs an experiment plan with versions: [..] as the
// compare-versions command would: the baseline's settings on every major.
func runVersionPlan(ctx context.Context, p *tune.Plan) error {
	if global.dsn != "" {
		return problem.BadInput("drop --dsn: a versions plan runs each major in a managed cluster of its own",
			"a versions plan cannot use an external server")
	}
	v := versionStudy{Options: study.Options{Workload: p.Workload.Kind, Scale: p.Workload.Scale, Warehouses: p.Workload.Scale,
		Clients: p.Workload.Clients, Repetitions: p.Repetitions.Pairs}}
	majors := make([]string, len(p.Versions))
	for i, m := range p.Versions {
		majors[i] = strconv.Itoa(m)
	}
	for name, value := range p.Baseline.Settings {
		v.Sets = append(v.Sets, name+"="+string(value))
	}
	sort.Strings(v.Sets)
	if err := v.parse(strings.Join(majors, ","), p.Duration.String()); err != nil {
		return err
	}
	return v.run(ctx)
}

// versionTarget is one major's cluster, ready to run on.
type versionTarget struct {
	major   int
	version string
	dsn     string
}

func (v *versionStudy) run(ctx context.Context) error {
	if err := holdLab(); err != nil {
		return err
	}
	say := func(format string, args ...any) {
		if !global.json {
			fmt.Fprintf(os.Stderr, format+"\n", args...)
		}
	}
	targets := make([]versionTarget, 0, len(v.Majors))
	for _, m := range v.Majors {
		t, err := v.prepare(ctx, m, say)
		if err != nil {
			return err
		}
		targets = append(targets, t)
	}
	var runs []study.Run
	for rep := 1; rep <= v.Repetitions; rep++ {
		for _, t := range targets {
			say("== run %d/%d on PostgreSQL %s", rep, v.Repetitions, t.version)
			r, err := v.runOnce(ctx, t, rep)
			if err != nil {
				return fmt.Errorf("PostgreSQL %d, run %d: %w", t.major, rep, err)
			}
			runs = append(runs, r)
		}
	}
	c := study.Compare(v.Workload, v.Translations(), runs)
	if v.html != "" {
		if err := writeRunsHTML(ctx, runs, v.html); err != nil {
			return err
		}
		say("HTML comparison of the %d runs: %s", len(runs), v.html)
	}
	if global.json {
		return writeJSON(os.Stdout, c)
	}
	c.WriteText(os.Stdout)
	if len(runs) >= 2 {
		fmt.Printf("\n'pgoltp compare %s %s' compares two of the stored runs in detail\n", runs[0].RunID, runs[1].RunID)
	}
	return nil
}

// prepare brings up the major's cluster in LAB/pgNN, applies the settings and
// loads the workload (once: a repeated study reuses the load).
func (v *versionStudy) prepare(ctx context.Context, major int, say func(string, ...any)) (versionTarget, error) {
	lab := filepath.Join(global.lab, fmt.Sprintf("pg%d", major))
	unlock, err := cluster.LockLab(lab, "compare-versions", cluster.DefaultLockWait)
	if err != nil {
		return versionTarget{}, err
	}
	defer unlock()
	say("== PostgreSQL %d in %s", major, lab)
	c, err := cluster.Up(ctx, cluster.Options{Lab: lab, Major: major, Progress: os.Stderr})
	if err != nil {
		return versionTarget{}, err
	}
	apply := map[string]string{}
	for _, t := range v.PerMajor[major] {
		if t.Name != "" {
			apply[t.Name] = t.Value
		}
	}
	if _, err := c.Apply(ctx, apply); err != nil {
		return versionTarget{}, err
	}
	if err := c.EnsureDatabase(ctx, workDatabase); err != nil {
		return versionTarget{}, err
	}
	dsn := c.DSN(workDatabase)
	var logw = os.Stderr
	if global.json {
		logw = nil
	}
	switch v.Workload {
	case "tpcb":
		if scale, err := tpcb.Scale(ctx, dsn); err != nil || scale != v.Scale {
			o := tpcb.LoadOptions{Scale: v.Scale}
			if err := o.Validate(); err != nil {
				return versionTarget{}, problem.BadInput("fix --scale", "%v", err)
			}
			if _, err := tpcb.Load(ctx, dsn, o); err != nil {
				return versionTarget{}, fmt.Errorf("tpcb load on PostgreSQL %d: %w", major, err)
			}
		}
	case "tpcc":
		o := tpcc.LoadOptions{Warehouses: v.Warehouses}
		if logw != nil {
			o.Progress = logw
		}
		if err := o.Validate(); err != nil {
			return versionTarget{}, problem.BadInput("fix --warehouses", "%v", err)
		}
		if _, err := tpcc.Load(ctx, dsn, o); err != nil {
			return versionTarget{}, fmt.Errorf("tpcc load on PostgreSQL %d: %w", major, err)
		}
	}
	return versionTarget{major: major, version: c.Version, dsn: dsn}, nil
}

// runOnce runs the workload once on t, recorded in the results store, and
// measures what it did to the server.
func (v *versionStudy) runOnce(ctx context.Context, t versionTarget, rep int) (study.Run, error) {
	r := study.Run{Major: t.major, Version: t.version, Repetition: rep}
	before, err := study.Read(ctx, t.dsn, t.major, false)
	if err != nil {
		return r, fmt.Errorf("reading the server's statistics: %w", err)
	}
	w, err := v.newWorkload()
	if err != nil {
		return r, err
	}
	opts := recordOptions(true)
	opts.Params = []workload.Param{
		{Name: "postgres major", Value: strconv.Itoa(t.major)},
		{Name: "postgres version", Value: t.version},
		{Name: "compare-versions", Value: v.MajorsList()},
		{Name: "repetition", Value: strconv.Itoa(rep)}}
	for _, tr := range v.PerMajor[t.major] {
		if tr.Name != "" {
			opts.Params = append(opts.Params, workload.Param{Name: "set " + tr.Name, Value: tr.Value})
		}
	}
	out, err := recorder.Run(ctx, t.dsn, w, opts)
	if out != nil {
		r.RunID = out.RunID
		if out.Result != nil {
			studyFigures(&r, out.Result)
		}
	}
	if err != nil {
		return r, err
	}
	if out.Stored.Samples != nil {
		r.Statements = out.Stored.Samples.Statements
	}
	after, err := study.Read(ctx, t.dsn, t.major, true)
	if err != nil {
		return r, fmt.Errorf("reading the server's statistics: %w", err)
	}
	r.Effect = after.Sub(before)
	return r, nil
}

// newWorkload is the study's workload: its runs are compared, not checked.
func (v *versionStudy) newWorkload() (workload.Workload, error) {
	if v.Workload == "tpcb" {
		o := tpcb.RunOptions{Clients: v.Clients, Jobs: 1, Duration: v.Duration, NoCheck: true}
		if err := o.Validate(); err != nil {
			return nil, problem.BadInput("fix --clients or --duration", "%v", err)
		}
		return &tpcb.Workload{Options: o, SkipCheck: true}, nil
	}
	w := &tpcc.Workload{Options: tpcc.RunOptions{Warehouses: v.Warehouses, Conns: v.Clients, Duration: v.Duration}, CheckMode: tpcc.CheckNone}
	if err := w.Validate(); err != nil {
		return nil, problem.BadInput("fix --warehouses, --clients or --duration", "%v", err)
	}
	return w, nil
}

// studyFigures copies what the study compares: TPC-B's transactions and
// latency; TPC-C's five kinds and the New-Order latency.
func studyFigures(r *study.Run, res *workload.Result) {
	r.Txns, r.TPS = float64(res.Transactions), res.TPS()
	r.P50, r.P95, r.P99 = ms(res.P50), ms(res.P95), ms(res.P99)
	if tc, ok := res.Detail.(*tpcc.RunResult); ok {
		r.Txns = 0
		for _, x := range tc.Txns {
			r.Txns += float64(x.Count)
		}
		r.TPS = tc.TpmTotal / 60
		no := tc.Txn("new_order").Latency
		r.P50, r.P95, r.P99 = ms(no.P50), ms(no.P95), ms(no.P99)
	}
}

// writeRunsHTML writes the stored runs side by side (the first is the baseline).
func writeRunsHTML(ctx context.Context, runs []study.Run, out string) error {
	s, err := openResults(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	stored := make([]*store.Run, 0, len(runs))
	for _, r := range runs {
		sr, err := loadRun(ctx, s, r.RunID)
		if err != nil {
			return err
		}
		stored = append(stored, sr)
	}
	c := report.Compare(stored)
	if err := runfile.WriteAtomically(out, c.HTML); err != nil {
		return problem.Wrap(err, "check that the directory of -o is writable", "cannot write %s", out)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
