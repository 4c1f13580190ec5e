package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/store"
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

// openResults opens the results store for reading: it does not create a lab
// that does not exist.
func openResults(ctx context.Context) (*store.Store, error) {
	if resultsStore.dsn == "" {
		if _, err := os.Stat(filepath.Join(global.lab, store.FileName)); errors.Is(err, os.ErrNotExist) {
			return nil, problem.BadInput("record a run first, or point --lab (or --results-dsn) at where runs are kept",
				"no runs stored in %s", global.lab)
		}
	}
	s, err := store.Open(ctx, global.lab, resultsStore.dsn)
	if err != nil {
		if resultsStore.dsn != "" {
			return nil, problem.Wrap(err, "check --results-dsn", "cannot open the results database")
		}
		return nil, problem.Wrap(err, "check --lab", "cannot open the results store")
	}
	return s, nil
}

// loadRun resolves what the user typed to a stored run and loads it.
func loadRun(ctx context.Context, s *store.Store, ref string) (*store.Run, error) {
	id, err := s.Resolve(ctx, ref)
	if errors.Is(err, store.ErrNotFound) {
		return nil, problem.BadInput("run 'pgoltp runs' to see the stored runs", "no stored run matches %q", ref)
	}
	if err != nil {
		return nil, problem.BadInput("run 'pgoltp runs' to see the stored runs", "%s", err.Error())
	}
	return s.Load(ctx, id)
}

func listRuns(ctx context.Context, w io.Writer, format string) error {
	s, err := openResults(ctx)
	if err != nil {
		var p *problem.Problem
		if format == "text" && errors.As(err, &p) && p.Code == problem.ExitBadInput && resultsStore.dsn == "" {
			fmt.Fprintf(w, "No runs stored in %s yet.\n", global.lab)
			return nil
		}
		return err
	}
	defer s.Close()
	runs, err := s.List(ctx)
	if err != nil {
		return err
	}
	switch format {
	case "csv":
		return runsCSV(w, runs)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if runs == nil {
			runs = []store.Summary{}
		}
		return enc.Encode(runs)
	}
	if len(runs) == 0 {
		fmt.Fprintf(w, "No runs stored in %s yet.\n", s.Where())
		return nil
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED (UTC)\tWORKLOAD\tSTATUS\tDURATION\tRESULT\tTITLE")
	for _, r := range runs {
		dur := "–"
		if !r.EndedAt.IsZero() && r.EndedAt.After(r.StartedAt) {
			dur = r.EndedAt.Sub(r.StartedAt).Round(time.Second).String()
		}
		var figs []string
		for i, f := range r.Headline {
			if i == 2 {
				break
			}
			figs = append(figs, strings.TrimSpace(fmt.Sprintf("%s %s %s", f.Name, trimFloat(f.Value), f.Unit)))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.StartedAt.UTC().Format("2006-01-02 15:04:05"), r.Workload,
			r.Status, dur, strings.Join(figs, ", "), r.Title)
	}
	return tw.Flush()
}

// trimFloat prints a figure compactly: 1234.5678 -> 1234.57, 3 -> 3.
func trimFloat(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// runsCSV writes one row per run with a column per headline figure (the union
// over all runs, in order of first appearance), for a spreadsheet.
func runsCSV(w io.Writer, runs []store.Summary) error {
	var figures []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, f := range r.Headline {
			col := f.Name
			if f.Unit != "" {
				col += " (" + f.Unit + ")"
			}
			if !seen[col] {
				seen[col] = true
				figures = append(figures, col)
			}
		}
	}
	cw := csv.NewWriter(w)
	_ = cw.Write(append([]string{"id", "started_at", "ended_at", "workload", "status", "title"}, figures...))
	for _, r := range runs {
		vals := map[string]string{}
		for _, f := range r.Headline {
			col := f.Name
			if f.Unit != "" {
				col += " (" + f.Unit + ")"
			}
			vals[col] = strconv.FormatFloat(f.Value, 'f', -1, 64)
		}
		row := []string{r.ID, r.StartedAt.UTC().Format(time.RFC3339), "", r.Workload, string(r.Status), r.Title}
		if !r.EndedAt.IsZero() {
			row[2] = r.EndedAt.UTC().Format(time.RFC3339)
		}
		for _, c := range figures {
			row = append(row, vals[c])
		}
		_ = cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}
