package main

import (
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
			return compareRuns(cmd, args, out, format)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "file to write ('-' for standard output)")
	cmd.Flags().StringVar(&format, "format", "", "text, html or json (default: from the -o extension, else text)")
	rootCmd.AddCommand(cmd)
}

func compareRuns(cmd *cobra.Command, refs []string, out, format string) error {
	format = strings.ToLower(format)
	if format == "" {
		switch strings.ToLower(filepath.Ext(out)) {
		case ".html", ".htm":
			format = "html"
		case ".json":
			format = "json"
		default:
			format = "text"
			if global.json {
				format = "json"
			}
		}
	}
	if format != "text" && format != "html" && format != "json" {
		return problem.BadInput("use --format text, html or json", "unknown comparison format %q", format)
	}
	ctx := cmd.Context()
	s, err := openResults(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	var runs []*store.Run
	seen := map[string]bool{}
	for _, ref := range refs {
		r, err := loadRun(ctx, s, ref)
		if err != nil {
			return err
		}
		if seen[r.ID] {
			return problem.BadInput("name each run once", "run %s is named twice", r.ID)
		}
		seen[r.ID] = true
		runs = append(runs, r)
	}
	c := report.Compare(runs)
	render := func(w io.Writer) error {
		switch format {
		case "html":
			return c.HTML(w)
		case "json":
			return writeJSON(w, c)
		}
		return c.Text(w)
	}
	if out == "" || out == "-" {
		return render(cmd.OutOrStdout())
	}
	if err := runfile.WriteAtomically(out, render); err != nil {
		return problem.Wrap(err, "check that the directory of -o is writable", "cannot write %s", out)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Comparison of %d runs: %s\n", len(runs), out)
	return nil
}
