package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/runfile"
)

// ErrNoStore is the cause of OpenExisting's error when the lab has no
// results store yet (nothing was recorded there).
var ErrNoStore = errors.New("no results store")

// OpenExisting opens the results store of the commands that read runs: it
// does not create a lab that has none, and its failures are problems naming
// --lab or --results-dsn. A lab that is not a directory, or (as root) not
// safely owned, is refused as 'cluster up' refuses it (runfile.CheckLab).
func OpenExisting(ctx context.Context, labDir, resultsDSN string) (*Store, error) {
	if resultsDSN == "" {
		err := runfile.CheckLab(labDir)
		if err == nil {
			if _, err = os.Lstat(filepath.Join(labDir, FileName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, problem.Wrap(err, "check --lab", "cannot read the results store")
			}
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &problem.Problem{What: fmt.Sprintf("no runs stored in %s", labDir),
				Fix:  "record a run first, or point --lab (or --results-dsn) at where runs are kept",
				Code: problem.ExitBadInput, Err: ErrNoStore}
		}
		if err != nil {
			return nil, err
		}
	}
	s, err := Open(ctx, labDir, resultsDSN)
	var p *problem.Problem
	switch {
	case err == nil:
		return s, nil
	case errors.As(err, &p):
		return nil, err
	case resultsDSN != "":
		return nil, problem.Wrap(err, "check --results-dsn", "cannot open the results database")
	}
	return nil, problem.Wrap(err, "check --lab", "cannot open the results store")
}

// Find resolves what the user typed (an id, a unique prefix, "last",
// "last~N") and loads that run; a reference to no run is bad input.
func (s *Store) Find(ctx context.Context, ref string) (*Run, error) {
	id, err := s.Resolve(ctx, ref)
	if errors.Is(err, ErrNotFound) {
		return nil, problem.BadInput("run 'pgoltp runs' to see the stored runs", "no stored run matches %q", ref)
	}
	var p *problem.Problem
	if errors.As(err, &p) {
		return nil, err
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
