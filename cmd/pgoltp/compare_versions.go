package main

import (
	"context"
	"encoding/json"
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
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/study"
	"github.com/pgoltp/pgoltp/internal/tune"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/tpcb"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// versionStudy is what 'pgoltp compare-versions' was asked to do.
type versionStudy struct {
	majors      []int
	workload    string
	scale       int // TPC-B
	warehouses  int // TPC-C
	clients     int
	duration    time.Duration
	repetitions int
	sets        []string
	html        string // also write an HTML comparison of every run here
	perMajor    map[int][]study.Translation
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
	f.StringVar(&v.workload, "workload", "tpcb", "tpcb or tpcc")
	f.IntVar(&v.scale, "scale", 1, "TPC-B scale factor")
	f.IntVar(&v.warehouses, "warehouses", 1, "TPC-C warehouses")
	f.IntVarP(&v.clients, "clients", "c", 4, "client connections")
	f.StringVar(&duration, "duration", "30s", "length of each run")
	f.IntVar(&v.repetitions, "repetitions", 1, "runs per major, interleaved across majors")
	f.StringArrayVar(&v.sets, "set", nil, "a server setting name=value applied on every major (repeatable)")
	f.StringVarP(&v.html, "output", "o", "", "also write the stored runs side by side as an HTML page (pgoltp compare's view) to this file")
	rootCmd.AddCommand(cmd)
}

// parse checks every flag before any cluster is touched.
func (v *versionStudy) parse(pg, duration string) error {
	bad := func(format string, args ...any) error {
		return problem.BadInput("run 'pgoltp compare-versions --help' for the flags", format, args...)
	}
	seen := map[int]bool{}
	for _, s := range strings.Split(pg, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		m, err := strconv.Atoi(s)
		if err != nil || m == 0 {
			return bad("--pg %q: give majors such as 10,15,18", pg)
		}
		if err := cluster.ValidMajor(m); err != nil {
			return bad("--pg: %v", err)
		}
		if !seen[m] {
			seen[m] = true
			v.majors = append(v.majors, m)
		}
	}
	if len(v.majors) < 2 {
		return bad("--pg %q: give at least two majors to compare, e.g. --pg 10,15", pg)
	}
	if v.workload != "tpcb" && v.workload != "tpcc" {
		return bad("--workload %q: use tpcb or tpcc", v.workload)
	}
	d, err := tpcb.ParseDuration(duration, time.Second)
	if err != nil || d <= 0 {
		return bad("--duration %q: give a duration such as 30s or 5m", duration)
	}
	v.duration = d
	if v.repetitions < 1 || v.scale < 1 || v.warehouses < 1 || v.clients < 1 {
		return bad("--repetitions, --scale, --warehouses and --clients must be at least 1")
	}
	v.perMajor = map[int][]study.Translation{}
	sets, err := settings.ParseAssignments(v.sets)
	if err != nil {
		return bad("--set %v: use name=value", err)
	}
	for _, a := range sets {
		for _, m := range v.majors {
			t, err := study.Translate(m, a.Name, a.Value)
			if err != nil {
				return problem.BadInput("fix or drop the --set", "--set %s for PostgreSQL %d: %v", a.Given, m, err)
			}
			v.perMajor[m] = append(v.perMajor[m], t)
		}
	}
	return nil
}

// runVersionPlan runs an experiment plan with versions: [..] as the
// compare-versions command would: the baseline's settings on every major.
func runVersionPlan(ctx context.Context, p *tune.Plan) error {
	if global.dsn != "" {
		return problem.BadInput("drop --dsn: a versions plan runs each major in a managed cluster of its own",
			"a versions plan cannot use an external server")
	}
	v := versionStudy{workload: p.Workload.Kind, scale: p.Workload.Scale, warehouses: p.Workload.Scale,
		clients: p.Workload.Clients, repetitions: p.Repetitions.Pairs}
	majors := make([]string, len(p.Versions))
	for i, m := range p.Versions {
		majors[i] = strconv.Itoa(m)
	}
	for name, value := range p.Baseline.Settings {
		v.sets = append(v.sets, name+"="+string(value))
	}
	sort.Strings(v.sets)
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
	targets := make([]versionTarget, 0, len(v.majors))
	for _, m := range v.majors {
		t, err := v.prepare(ctx, m, say)
		if err != nil {
			return err
		}
		targets = append(targets, t)
	}
	var runs []study.Run
	for rep := 1; rep <= v.repetitions; rep++ {
		for _, t := range targets {
			say("== run %d/%d on PostgreSQL %s", rep, v.repetitions, t.version)
			r, err := v.runOnce(ctx, t, rep)
			if err != nil {
				return fmt.Errorf("PostgreSQL %d, run %d: %w", t.major, rep, err)
			}
			runs = append(runs, r)
		}
	}
	var translations []study.Translation
	for _, m := range v.majors {
		translations = append(translations, v.perMajor[m]...)
	}
	sort.SliceStable(translations, func(i, j int) bool { return translations[i].Given < translations[j].Given })
	c := study.Compare(v.workload, translations, runs)
	if v.html != "" {
		if err := writeRunsHTML(ctx, runs, v.html); err != nil {
			return err
		}
		say("HTML comparison of the %d runs: %s", len(runs), v.html)
	}
	if global.json {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(c)
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
	for _, t := range v.perMajor[major] {
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
	switch v.workload {
	case "tpcb":
		if scale, err := tpcb.Scale(ctx, dsn); err != nil || scale != v.scale {
			o := tpcb.LoadOptions{Scale: v.scale}
			if err := o.Validate(); err != nil {
				return versionTarget{}, problem.BadInput("fix --scale", "%v", err)
			}
			if _, err := tpcb.Load(ctx, dsn, o); err != nil {
				return versionTarget{}, fmt.Errorf("tpcb load on PostgreSQL %d: %w", major, err)
			}
		}
	case "tpcc":
		o := tpcc.LoadOptions{Warehouses: v.warehouses}
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
		{Name: "compare-versions", Value: majorsList(v.majors)},
		{Name: "repetition", Value: strconv.Itoa(rep)}}
	for _, tr := range v.perMajor[t.major] {
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
	if v.workload == "tpcb" {
		o := tpcb.RunOptions{Clients: v.clients, Jobs: 1, Duration: v.duration, NoCheck: true}
		if err := o.Validate(); err != nil {
			return nil, problem.BadInput("fix --clients or --duration", "%v", err)
		}
		return &tpcb.Workload{Options: o, SkipCheck: true}, nil
	}
	w := &tpcc.Workload{Options: tpcc.RunOptions{Warehouses: v.warehouses, Conns: v.clients, Duration: v.duration}, CheckMode: tpcc.CheckNone}
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

func majorsList(majors []int) string {
	s := make([]string, len(majors))
	for i, m := range majors {
		s[i] = strconv.Itoa(m)
	}
	return strings.Join(s, ",")
}
