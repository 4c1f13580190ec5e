package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// OpenExisting opens the results store of the commands that read runs: it
// does not create a lab that has none, and its failures are problems naming
// --lab or --results-dsn.
func OpenExisting(ctx context.Context, labDir, resultsDSN string) (*Store, error) {
	if resultsDSN == "" {
		if _, err := os.Stat(filepath.Join(labDir, FileName)); errors.Is(err, os.ErrNotExist) {
			return nil, problem.BadInput("record a run first, or point --lab (or --results-dsn) at where runs are kept",
				"no runs stored in %s", labDir)
		}
	}
	s, err := Open(ctx, labDir, resultsDSN)
	if err != nil {
		if resultsDSN != "" {
			return nil, problem.Wrap(err, "check --results-dsn", "cannot open the results database")
		}
		return nil, problem.Wrap(err, "check --lab", "cannot open the results store")
	}
	return s, nil
}

// Find resolves what the user typed (an id, a unique prefix, "last",
// "last~N") and loads that run; a reference to no run is bad input.
func (s *Store) Find(ctx context.Context, ref string) (*Run, error) {
	id, err := s.Resolve(ctx, ref)
	if errors.Is(err, ErrNotFound) {
		return nil, problem.BadInput("run 'pgoltp runs' to see the stored runs", "no stored run matches %q", ref)
	}
	if err != nil {
		return nil, problem.BadInput("run 'pgoltp runs' to see the stored runs", "%s", err.Error())
	}
	return s.Load(ctx, id)
}

// FindAll finds every run refs name, in order; naming a run twice is bad
// input.
func (s *Store) FindAll(ctx context.Context, refs []string) ([]*Run, error) {
	runs := make([]*Run, 0, len(refs))
	seen := map[string]bool{}
	for _, ref := range refs {
		r, err := s.Find(ctx, ref)
		if err != nil {
			return nil, err
		}
		if seen[r.ID] {
			return nil, problem.BadInput("name each run once", "run %s is named twice", r.ID)
		}
		seen[r.ID] = true
		runs = append(runs, r)
	}
	return runs, nil
}
