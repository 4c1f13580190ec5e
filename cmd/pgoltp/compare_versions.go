package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/experiment"
	"github.com/pgoltp/pgoltp/internal/field"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/study"
	"github.com/pgoltp/pgoltp/internal/workload/registry"
	"github.com/pgoltp/pgoltp/internal/workload/script"
	"github.com/pgoltp/pgoltp/internal/workload/tpcb"
)

func init() {
	var (
		pg, duration, html string
		o                  = study.Options{Kinds: registry.KindsFor(registry.Versions)}
		sf                 scriptFlags
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
  pgoltp compare-versions --pg 13,17 --workload tpcc --warehouses 2 --set max_wal_size=4GB --duration 5m
  pgoltp compare-versions --pg 10,15 --workload script -f mine.sql@3 -b select-only@1 --scale 10 --duration 60s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := parseStudy(&o, pg, duration); err != nil {
				return badFlag(err, studyFlagNames, "run 'pgoltp compare-versions --help' for the flags")
			}
			if err := sf.check(o.Workload, cmd.Flags()); err != nil {
				return err
			}
			if err := checkStudyScript(o, sf.o); err != nil {
				return namedFlags(err, scriptFlagNames)
			}
			if global.dsn != "" {
				return problem.BadInput("drop --dsn: compare-versions runs each major in a managed cluster of its own",
					"compare-versions cannot use an external server")
			}
			return runStudy(cmd.Context(), cmd.OutOrStdout(), o, sf.o, html)
		},
	}
	f := cmd.Flags()
	f.StringVar(&pg, "pg", "", "PostgreSQL majors to compare, comma-separated (10 to 18), e.g. 10,15,18")
	f.StringVar(&o.Workload, "workload", o.Kinds[0], registry.Or(o.Kinds))
	f.IntVar(&o.Scale, "scale", 1, "TPC-B scale factor")
	f.IntVar(&o.Warehouses, "warehouses", 1, "TPC-C warehouses")
	f.IntVarP(&o.Clients, "clients", "c", 4, "client connections")
	f.IntVar(&o.Repetitions, "repetitions", 1, "runs per major, interleaved across majors")
	f.StringArrayVar(&o.Sets, "set", nil, "a server setting name=value applied on every major (repeatable)")
	f.StringVar(&duration, "duration", "30s", "length of each run")
	f.StringVarP(&html, "output", "o", "", "also write the stored runs side by side as an HTML page (pgoltp compare's view) to this file")
	sf.add(f)
	rootCmd.AddCommand(cmd)
}

// checkStudyScript checks a study's script options (kind script) before any
// cluster is touched.
func checkStudyScript(o study.Options, sc script.Options) error {
	if o.Workload != "script" {
		return nil
	}
	sc.Scale, sc.Clients = o.Scale, o.Clients
	if sc.Init == script.InitNone {
		return field.Bad("Init", sc.Init, "cannot be compared across majors: each major's cluster starts empty", script.InitPgbench+" (pgbench -i)")
	}
	return script.New(sc).Validate()
}

// parseStudy checks every option before any cluster is touched; its errors
// are the study's field errors, for the caller to name.
func parseStudy(o *study.Options, pg, duration string) (err error) {
	if len(o.Builds) == 0 {
		if o.Majors, err = study.ParseMajors(pg); err != nil {
			return err
		}
	}
	o.DurationText = duration
	if d, err := tpcb.ParseDuration(duration, time.Second); err == nil {
		o.Duration = d
	}
	return o.Validate()
}

// runVersionPlan runs an experiment plan with versions: [..] as the
// compare-versions command would: the baseline's settings on every major;
// one with builds: [..] the same way on each build of 'pgoltp build'.
func runVersionPlan(ctx context.Context, out io.Writer, path string, p *experiment.Plan) error {
	key := "versions"
	if len(p.Builds) > 0 {
		key = "builds"
	}
	if kinds := registry.KindsFor(registry.Versions); !slices.Contains(kinds, p.Workload.Kind) {
		return problem.BadInput("fix the plan file (see 'pgoltp experiment --help')", "%s: %s: compares %s, not %s",
			path, key, registry.Or(kinds), p.Workload.Kind)
	}
	if global.dsn != "" {
		return problem.BadInput(fmt.Sprintf("drop --dsn: a %s plan runs each in a managed cluster of its own", key),
			"a %s plan cannot use an external server", key)
	}
	pg, sets, duration := p.VersionStudy()
	o := study.Options{Workload: p.Workload.Kind, Kinds: registry.KindsFor(registry.Versions), Scale: p.Workload.Scale, Warehouses: p.Workload.Scale,
		Clients: p.Workload.Clients, Repetitions: p.Repetitions.Pairs, Sets: sets, Builds: p.Builds}
	if err := parseStudy(&o, pg, duration); err != nil {
		return badPlan(path, err)
	}
	sc := planSpec(p.Workload).Script
	if err := checkStudyScript(o, sc); err != nil {
		return badPlan(path, err)
	}
	return runStudy(ctx, out, o, sc, "")
}

// runStudy runs the study (recording every run), writes the HTML comparison
// of its runs to html if asked, and prints the comparison.
func runStudy(ctx context.Context, out io.Writer, o study.Options, sc script.Options, html string) error {
	if err := holdLab(); err != nil {
		return err
	}
	var log io.Writer = os.Stderr
	if global.json {
		log = nil
	}
	bench, err := studyBench(o, sc, log)
	if err != nil {
		return err
	}
	s := study.Study{Options: o, Lab: global.lab, Bench: bench, Record: recordOptions(true), Log: log, Progress: os.Stderr}
	c, runs, err := s.Run(ctx)
	if err != nil {
		return err
	}
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.RunID
	}
	if html != "" {
		if _, err := writeComparison(ctx, nil, ids, html, "html"); err != nil {
			return err
		}
		if log != nil {
			fmt.Fprintf(log, "HTML comparison of the %d runs: %s\n", len(runs), html)
		}
	}
	if global.json {
		return writeJSON(out, c)
	}
	c.WriteText(out)
	if len(runs) >= 2 {
		fmt.Fprintf(out, "\n'pgoltp compare %s %s' compares two of the stored runs in detail\n", ids[0], ids[1])
	}
	return nil
}

// studyBench is the registry's workload o names, as the study runs it: its
// scale is the flag the registry entry names (--scale or --warehouses); sc
// are kind script's options.
func studyBench(o study.Options, sc script.Options, progress io.Writer) (study.Bench, error) {
	e, err := registry.Lookup(o.Workload)
	if err != nil {
		return nil, err
	}
	sizes := map[string]int{"scale": o.Scale, "warehouses": o.Warehouses}
	return registry.NewBench(e.Kind, registry.Spec{Scale: sizes[e.ScaleFlag], Clients: o.Clients, Duration: o.Duration, Progress: progress, Script: sc})
}
