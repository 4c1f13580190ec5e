package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/secret"
)

// Search is a series of runs made by one process towards one answer (a
// `pgoltp tune` search): its owner's document, rewritten after every step,
// and the runs it made, each with its role in it. The store does not read
// the document; its owner defines it (tuner/record).
type Search struct {
	ID       string
	Kind     string // "tune"
	Title    string
	Started  time.Time
	Updated  time.Time
	Document []byte      // JSON
	Runs     []SearchRun // filled by LoadSearch, in the order the runs started
}

// SearchRun links a stored run to the search that made it.
type SearchRun struct {
	RunID string `json:"run_id"`
	Role  string `json:"role"`  // e.g. baseline, trial, confirm, ablation
	Trial int    `json:"trial"` // the trial it belongs to or follows (0: none)
	Label string `json:"label"`
	// Read from the run by LoadSearch.
	Status    Status    `json:"status"`
	StartedAt time.Time `json:"started_at"`
	Title     string    `json:"title"`
}

// SaveSearch stores the search's row, replacing the one with its id.
func (s *Store) SaveSearch(ctx context.Context, sr *Search) error {
	if !ValidID(sr.ID) {
		return fmt.Errorf("storing search %q: %w", sr.ID, errBadID)
	}
	if sr.Updated.IsZero() {
		sr.Updated = time.Now()
	}
	doc, err := secret.JSON(sr.Document) // never store a secret, whoever made the record
	if err != nil {
		return fmt.Errorf("storing search %s: %w", sr.ID, err)
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.bind(`DELETE FROM pgoltp_searches WHERE id = ?`), sr.ID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.bind(`INSERT INTO pgoltp_searches (id, kind, title, started_us, updated_us, document) VALUES (?, ?, ?, ?, ?, ?)`),
			sr.ID, sr.Kind, sr.Title, micros(sr.Started), micros(sr.Updated), string(doc))
		return err
	})
	if err != nil {
		return fmt.Errorf("storing search %s in %s: %w", sr.ID, s.where, err)
	}
	return nil
}

// LinkRun records that run l.RunID belongs to search id.
func (s *Store) LinkRun(ctx context.Context, id string, l SearchRun) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.bind(`DELETE FROM pgoltp_search_runs WHERE search_id = ? AND run_id = ?`), id, l.RunID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.bind(`INSERT INTO pgoltp_search_runs (search_id, run_id, role, trial, label) VALUES (?, ?, ?, ?, ?)`),
			id, l.RunID, l.Role, l.Trial, l.Label)
		return err
	})
	if err != nil {
		return fmt.Errorf("linking run %s to search %s in %s: %w", l.RunID, id, s.where, err)
	}
	return nil
}

// ResolveSearch turns what a person typed into a search id of kind: "" or
// "latest" is the newest search, else an exact id or a unique prefix.
func (s *Store) ResolveSearch(ctx context.Context, kind, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" || ref == "latest" || ref == "last" {
		var id string
		err := s.db.QueryRowContext(ctx, s.bind(`SELECT id FROM pgoltp_searches WHERE kind = ? ORDER BY started_us DESC, id DESC LIMIT 1`), kind).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return "", ErrNotFound
		}
		if err != nil {
			return "", err
		}
		return id, s.checkID(id)
	}
	rows, err := s.db.QueryContext(ctx, s.bind(`SELECT id FROM pgoltp_searches WHERE kind = ? AND (id = ? OR substr(id, 1, ?) = ?) ORDER BY id LIMIT 3`), kind, ref, len(ref), ref)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", s.where, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return "", err
		}
		if err := s.checkID(id); err != nil {
			return "", err
		}
		if id == ref {
			return id, nil
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	switch len(ids) {
	case 0:
		return "", ErrNotFound
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("%q matches several searches (%s...): type more of the id", ref, strings.Join(ids, ", "))
}

// LoadSearch reads a search and its linked runs (those still stored).
func (s *Store) LoadSearch(ctx context.Context, id string) (*Search, error) {
	if err := s.checkID(id); err != nil {
		return nil, err
	}
	sr := &Search{ID: id}
	var started, updated int64
	var doc string
	err := s.db.QueryRowContext(ctx, s.bind(`SELECT kind, title, started_us, updated_us, document FROM pgoltp_searches WHERE id = ?`), id).
		Scan(&sr.Kind, &sr.Title, &started, &updated, &doc)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading search %s: %w", id, err)
	}
	sr.Started, sr.Updated, sr.Document = fromMicros(started), fromMicros(updated), []byte(doc)
	err = s.each(ctx, `SELECT l.run_id, l.role, l.trial, l.label, r.status, r.owner, r.started_us, r.title
		FROM pgoltp_search_runs l JOIN pgoltp_runs r ON r.id = l.run_id WHERE l.search_id = ? ORDER BY r.started_us, r.id`, id, func(rs *sql.Rows) error {
		var l SearchRun
		var status, owner string
		var at int64
		if err := rs.Scan(&l.RunID, &l.Role, &l.Trial, &l.Label, &status, &owner, &at, &l.Title); err != nil {
			return err
		}
		if err := s.checkID(l.RunID); err != nil {
			return err
		}
		l.Status, l.StartedAt = effectiveStatus(Status(status), owner), fromMicros(at)
		sr.Runs = append(sr.Runs, l)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the runs of search %s: %w", id, err)
	}
	return sr, nil
}
