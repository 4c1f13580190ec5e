package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/group"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/report"
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
	if err == nil {
		runs, err = group.Collapse(ctx, s, runs) // a group of parts is one line
	}
	if err != nil {
		return err
	}
	switch format {
	case "csv":
		return report.RunsCSV(w, runs)
	case "json":
		if runs == nil {
			runs = []store.Summary{}
		}
		return writeJSON(w, runs)
	}
	if len(runs) == 0 {
		fmt.Fprintf(w, "No runs stored in %s yet.\n", s.Where())
		return nil
	}
	return report.RunsText(w, runs)
}
