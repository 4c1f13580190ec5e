package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/advise"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/report"
	"github.com/pgoltp/pgoltp/internal/runfile"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/sweep"
)

// resultsStore holds --results-dsn: where runs are kept when not in the lab's
// results.db. Every command that records or reads runs uses it.
var resultsStore struct{ dsn string }

func init() {
	var format string
	rootCmd.PersistentFlags().StringVar(&resultsStore.dsn, "results-dsn", "",
		"keep results in this PostgreSQL database instead of <lab>/results.db")
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List the stored runs, newest first",
		Long: `List the runs stored in the lab's results.db (or --results-dsn), newest first,
with their status and headline figures. A run whose process died before it
finished (a crash, a kill) is shown as "incomplete".

Refer to a run in other commands by its id, a unique prefix of it, "last" or
"last~N" (N runs before the last).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch format {
			case "", "text", "json", "csv":
			default:
				return problem.BadInput("use --format text, json or csv", "unknown list format %q", format)
			}
			if global.json {
				format = "json"
			}
			return listRuns(cmd.Context(), cmd.OutOrStdout(), format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "text, json or csv (one row per run, a column per headline figure)")
	rootCmd.AddCommand(cmd)
}

// openResults opens the results store for reading (store.OpenExisting).
func openResults(ctx context.Context) (*store.Store, error) {
	return store.OpenExisting(ctx, global.lab, resultsStore.dsn)
}

// pastRun loads a stored run and digests what the tuning rules need.
func pastRun(ctx context.Context, ref string) (advise.PastRun, error) {
	s, err := openResults(ctx)
	if err != nil {
		return advise.PastRun{}, err
	}
	defer s.Close()
	return advise.LoadPastRun(ctx, s, ref)
}

func listRuns(ctx context.Context, w io.Writer, format string) error {
	s, err := openResults(ctx)
	if err != nil {
		if format == "text" && errors.Is(err, store.ErrNoStore) {
			fmt.Fprintf(w, "No runs stored in %s yet.\n", global.lab)
			return nil
		}
		return err
	}
	defer s.Close()
	return report.List(ctx, w, s, format)
}

func init() {
	var out, format string
	cmd := &cobra.Command{
		Use:   "report [RUN | GROUP | tune[:ID]]",
		Short: "Write the report of a stored run (HTML, JSON or CSV)",
		Long: `Write the report of a stored run: RUN is an id, a unique prefix, "last"
(the default) or "last~N". A group name (--group of 'tpcc run', 'tpcb run')
reports the group as one run, as text or --format json.

--format html (the default) writes one self-contained HTML file that opens
offline: headline figures and every parameter, throughput and latency over time,
CPU, disk, WAL and checkpoints on the same time axis, wait events, top
statements, table growth, and the settings that differ from defaults with their
risk. Without -o it goes to <lab>/reports/<run>.html.

--format json writes everything stored about the run; --format csv writes its
time series in long form (source,t,metric,key,value); --format openmetrics
writes its series with timestamps in the live endpoint's names, for
'promtool tsdb create-blocks-from openmetrics FILE DIR'. Without -o they go to
standard output. The format is taken from the -o extension when not given.

RUN "tune" (the latest search), "tune:ID" or a search id reports a
'pgoltp tune' search instead: trajectory, trials, setting importance,
confirmation, ablation and layout phase, as html or json, from the results
store alone.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref := "last"
			if len(args) == 1 {
				ref = args[0]
			}
			return writeRunReport(cmd, ref, out, format)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "file to write ('-' for standard output)")
	cmd.Flags().StringVar(&format, "format", "", "html, json, csv or openmetrics (default: from the -o extension, else html)")
	rootCmd.AddCommand(cmd)
}

// writeRunReport writes the report of the stored run, group or search ref
// in format to out.
func writeRunReport(cmd *cobra.Command, ref, out, format string) error {
	format, err := report.OutputFormat("report", format, out, global.json && out == "", "html", "json", "csv", "openmetrics")
	if err != nil {
		return err
	}
	if strings.HasPrefix(ref, "sweep-") {
		return writeSweepReport(cmd, ref, out, format)
	}
	s, err := openResults(cmd.Context())
	if err != nil {
		return err
	}
	defer s.Close()
	doc, err := report.Open(cmd.Context(), s, ref, format)
	if err != nil {
		return err
	}
	if out == "" && format == "html" && doc.OwnFile {
		out = filepath.Join(global.lab, "reports", doc.ID+".html")
		err = writeInLab(filepath.Join("reports", doc.ID+".html"), doc.Render)
	} else {
		err = writeOutput(cmd.OutOrStdout(), out, doc.Render)
	}
	if err == nil && out != "" && out != "-" {
		fmt.Fprintf(cmd.OutOrStdout(), "Report of %s %s (%s): %s\n", doc.Kind, doc.ID, doc.Status, out)
	}
	return err
}

func init() {
	var out, format string
	cmd := &cobra.Command{
		Use:   "compare RUN RUN...",
		Short: "Show stored runs side by side: figures with their change, and what differs",
		Long: `Show two or more stored runs side by side. The first run is the baseline: each
headline figure and latency percentile of the others is shown with its change
against it, followed by the parameters, server settings (with their risk) and
system facts that differ between the runs.

Runs are ids, unique prefixes, "last" or "last~N". Plain text goes to standard
output; -o file.html writes a self-contained HTML page with the runs'
throughput overlaid; --json (or --format json) writes JSON.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return problem.BadInput("name at least two runs, e.g. 'pgoltp compare last~1 last'", "compare needs two or more runs, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := report.OutputFormat("comparison", format, out, global.json, "text", "html", "json")
			if err != nil {
				return err
			}
			n, err := writeComparison(cmd.Context(), cmd.OutOrStdout(), args, out, format)
			if err == nil && out != "" && out != "-" {
				fmt.Fprintf(cmd.OutOrStdout(), "Comparison of %d runs: %s\n", n, out)
			}
			return err
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "file to write ('-' for standard output)")
	cmd.Flags().StringVar(&format, "format", "", "text, html or json (default: from the -o extension, else text)")
	rootCmd.AddCommand(cmd)
}

// writeComparison loads the stored runs refs and writes their comparison in
// format to out, or to w when out is "" or "-"; it returns how many runs.
func writeComparison(ctx context.Context, w io.Writer, refs []string, out, format string) (int, error) {
	s, err := openResults(ctx)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	runs, err := s.FindAll(ctx, refs)
	if err != nil {
		return 0, err
	}
	c := report.Compare(runs)
	return len(runs), writeOutput(w, out, func(w io.Writer) error { return c.Write(w, format) })
}

// writeOutput writes render's output to the file out (atomically: a reader
// never sees half of it), or buffered to w when out is "" or "-".
func writeOutput(w io.Writer, out string, render func(io.Writer) error) error {
	if out == "" || out == "-" {
		bw := bufio.NewWriter(w)
		if err := render(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	if err := runfile.WriteAtomically(out, render); err != nil {
		return problem.Wrap(err, "check that the directory of -o is writable", "cannot write %s", out)
	}
	return nil
}

// writeInLab writes render's output to name under the lab (atomically, as
// writeOutput), opened through the lab's root: neither a symlink nor ".." in
// name leads out of it.
func writeInLab(name string, render func(io.Writer) error) error {
	root, err := runfile.OpenLab(global.lab)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := runfile.WriteIn(root, name, render); err != nil {
		return problem.Wrap(err, "remove what is in the way in the lab, or write elsewhere with -o",
			"cannot write %s", filepath.Join(global.lab, name))
	}
	return nil
}

// writeSweepReport renders a sweep, kept in the results store by 'pgoltp
// sweep', as HTML (the default, in the lab's reports) or JSON.
func writeSweepReport(cmd *cobra.Command, id, out, format string) error {
	if format != "html" && format != "json" {
		return problem.BadInput("use --format html or json", "a sweep has no %s report", format)
	}
	st, err := openResults(cmd.Context())
	if err != nil {
		return err
	}
	defer st.Close()
	full, err := st.ResolveSearch(cmd.Context(), sweepKind, id)
	if err != nil {
		return problem.BadInput("name a stored sweep: its id is printed by 'pgoltp sweep'", "no sweep %s in %s: %v", id, st.Where(), err)
	}
	sr, err := st.LoadSearch(cmd.Context(), full)
	if err != nil {
		return err
	}
	var rep sweep.Report
	if err := json.Unmarshal(sr.Document, &rep); err != nil {
		return problem.Failed("the sweep %s in the store is damaged: %v", full, err)
	}
	id = full
	render := func(w io.Writer) error { return report.SweepHTML(w, &rep) }
	if format == "json" {
		render = func(w io.Writer) error { return writeJSON(w, &rep) }
	}
	if out == "" && format == "html" {
		out = filepath.Join(global.lab, "reports", id+".html")
		err = writeInLab(filepath.Join("reports", id+".html"), render)
	} else {
		err = writeOutput(cmd.OutOrStdout(), out, render)
	}
	if err == nil && out != "" && out != "-" {
		fmt.Fprintf(cmd.OutOrStdout(), "Report of sweep %s: %s\n", id, out)
	}
	return err
}
