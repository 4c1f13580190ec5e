package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/report"
	"github.com/pgoltp/pgoltp/internal/runfile"
	"github.com/pgoltp/pgoltp/internal/store"
)

func init() {
	var out, format string
	cmd := &cobra.Command{
		Use:   "report [RUN | tune[:ID]]",
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
time series in long form (source,t,metric,key,value). Without -o they go to
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
	cmd.Flags().StringVar(&format, "format", "", "html, json or csv (default: from the -o extension, else html)")
	rootCmd.AddCommand(cmd)
}

func writeRunReport(cmd *cobra.Command, ref, out, format string) error {
	format = strings.ToLower(format)
	if format == "" {
		switch strings.ToLower(filepath.Ext(out)) {
		case ".json":
			format = "json"
		case ".csv":
			format = "csv"
		default:
			format = "html"
			if global.json && out == "" {
				format = "json"
			}
		}
	}
	var render func(io.Writer, *store.Run) error
	switch format {
	case "html":
		render = report.HTML
	case "json":
		render = report.JSON
	case "csv":
		render = report.CSV
	default:
		return problem.BadInput("use --format html, json or csv", "unknown report format %q", format)
	}
	ctx := cmd.Context()
	s, err := openResults(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	if search, ok := report.SearchRef(ref); ok {
		return writeSearchReport(cmd, s, search, out, format)
	}
	if done, err := writeGroupReport(cmd, s, ref, out, format); done {
		return err
	}
	run, err := loadRun(ctx, s, ref)
	if err != nil {
		return err
	}
	if out == "" && format == "html" {
		out = filepath.Join(global.lab, "reports", run.ID+".html")
	}
	if out == "" || out == "-" {
		w := bufio.NewWriter(cmd.OutOrStdout())
		if err := render(w, run); err != nil {
			return err
		}
		return w.Flush()
	}
	if err := runfile.WriteAtomically(out, func(w io.Writer) error { return render(w, run) }); err != nil {
		return problem.Wrap(err, "check that the directory of -o is writable", "cannot write %s", out)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Report of run %s (%s): %s\n", run.ID, run.Status, out)
	return nil
}

// writeSearchReport writes the report of a tune search (report tune[:ID]).
func writeSearchReport(cmd *cobra.Command, s *store.Store, ref, out, format string) error {
	v, err := report.LoadSearch(cmd.Context(), s, ref)
	if errors.Is(err, report.ErrNoSearch) {
		return problem.BadInput("run 'pgoltp tune' first, or name a stored search: pgoltp report tune:ID", "%v", err)
	} else if err != nil {
		return problem.Failed("%v", err)
	}
	render := report.SearchHTML
	switch format {
	case "json":
		render = report.SearchJSON
	case "csv":
		return problem.BadInput("use --format html or json", "a tune search has no CSV form")
	}
	if out == "" && format == "html" {
		out = filepath.Join(global.lab, "reports", v.ID+".html")
	}
	if out == "" || out == "-" {
		w := bufio.NewWriter(cmd.OutOrStdout())
		if err := render(w, v); err != nil {
			return err
		}
		return w.Flush()
	}
	if err := runfile.WriteAtomically(out, func(w io.Writer) error { return render(w, v) }); err != nil {
		return problem.Wrap(err, "check that the directory of -o is writable", "cannot write %s", out)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Report of search %s (%s): %s\n", v.ID, v.Status, out)
	return nil
}
