package report

import (
	"context"
	"errors"
	"io"

	"github.com/pgoltp/pgoltp/internal/group"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/store"
)

// Subject is what 'pgoltp report REF' writes: one stored run, a group of
// parts or a tune search, rendered in one format.
type Subject struct {
	Kind   string // "run", "group" or "search"
	ID     string // the run's or search's id, the group's name
	Status string
	// OwnFile says an HTML document goes to <lab>/reports/<ID>.html when no
	// -o is given (a group has no HTML page: its text goes to standard output).
	OwnFile bool
	Render  func(io.Writer) error
}

// Open finds what ref names in s, in this order: a tune search (SearchRef),
// a group, a run (store.Find), and readies it for format (html, json or csv).
func Open(ctx context.Context, s *store.Store, ref, format string) (*Subject, error) {
	if search, ok := SearchRef(ref); ok {
		return openSearch(ctx, s, search, format)
	}
	if d, err := openGroup(ctx, s, ref, format); d != nil || err != nil {
		return d, err
	}
	run, err := s.Find(ctx, ref)
	if err != nil {
		return nil, err
	}
	render := map[string]func(io.Writer, *store.Run) error{"html": HTML, "json": JSON, "csv": CSV, "openmetrics": OpenMetrics}[format]
	return &Subject{Kind: "run", ID: run.ID, Status: string(run.Status), OwnFile: true,
		Render: func(w io.Writer) error { return render(w, run) }}, nil
}

// openSearch readies the report of a tune search (report tune[:ID]).
func openSearch(ctx context.Context, s *store.Store, ref, format string) (*Subject, error) {
	v, err := LoadSearch(ctx, s, ref)
	var p *problem.Problem
	switch {
	case errors.Is(err, ErrNoSearch):
		return nil, problem.BadInput("run 'pgoltp tune' first, or name a stored search: pgoltp report tune:ID", "%v", err)
	case errors.As(err, &p):
		return nil, err // a corrupt store
	case err != nil:
		return nil, problem.Failed("%v", err)
	}
	render := SearchHTML
	switch format {
	case "json":
		render = SearchJSON
	case "csv", "openmetrics":
		return nil, problem.BadInput("use --format html or json", "a tune search has no %s form", format)
	}
	return &Subject{Kind: "search", ID: v.ID, Status: v.Status, OwnFile: true,
		Render: func(w io.Writer) error { return render(w, v) }}, nil
}

// openGroup readies the report of group ref when ref names one (else nil,
// nil): text (the HTML default has no group page) or json.
func openGroup(ctx context.Context, s *store.Store, ref, format string) (*Subject, error) {
	v, err := group.Load(ctx, s, ref)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	render := GroupText
	switch format {
	case "json":
		render = GroupJSON
	case "csv", "openmetrics":
		return nil, problem.BadInput("use --format json or text, or report each part's run by its id", "a group has no %s report", format)
	}
	return &Subject{Kind: "group", ID: v.Name, Status: v.Status,
		Render: func(w io.Writer) error { return render(w, v) }}, nil
}

// List writes the runs stored in s, newest first, in format (text, json or
// csv); a group of parts is one line.
func List(ctx context.Context, w io.Writer, s *store.Store, format string) error {
	runs, err := s.List(ctx)
	if err == nil {
		runs, err = group.Collapse(ctx, s, runs)
	}
	if err != nil {
		return err
	}
	return Runs(w, runs, format, s.Where())
}
