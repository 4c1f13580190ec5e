package store

import (
	"context"
	"database/sql"
	"fmt"
)

// groupParamsDDL holds the parameters each registration of a group's parts
// ran with (internal/group compares them at the barrier), keyed by run id:
// written before the part's row, so that a part seen registered always has
// its parameters there, and a refused second process for a part cannot
// overwrite the live one's.
const groupParamsDDL = `CREATE TABLE IF NOT EXISTS pgoltp_group_params (group_name TEXT NOT NULL, run_id TEXT NOT NULL,
	params TEXT NOT NULL, PRIMARY KEY (group_name, run_id))`

// SetGroupParams records the parameters (encoded by the caller) that run
// runID registers in group name with.
func (s *Store) SetGroupParams(ctx context.Context, name, runID, params string) error {
	_, err := s.db.ExecContext(ctx, s.bind(`INSERT INTO pgoltp_group_params (group_name, run_id, params) VALUES (?, ?, ?)
		ON CONFLICT (group_name, run_id) DO UPDATE SET params = excluded.params`), name, runID, params)
	if err != nil {
		return fmt.Errorf("registering the parameters of run %s in group %s in %s: %w", runID, name, s.where, err)
	}
	return nil
}

// GroupParams returns the parameters registered in group name, by run id.
func (s *Store) GroupParams(ctx context.Context, name string) (map[string]string, error) {
	out := map[string]string{}
	err := s.each(ctx, `SELECT run_id, params FROM pgoltp_group_params WHERE group_name = ?`, name, func(rs *sql.Rows) error {
		var id, p string
		if err := rs.Scan(&id, &p); err != nil {
			return err
		}
		out[id] = p
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the parameters of group %s: %w", name, err)
	}
	return out, nil
}
