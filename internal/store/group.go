package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Groups of parts: several processes (on one machine or several) driving one
// server together, each a part of a named group (pgoltp tpcc run --group g
// --part k/n). The store is their meeting point: every part registers here,
// waits until all are present, and starts at the time the group agreed on.
// The barrier itself is internal/group; this file is its two tables. Times
// are on the store server's clock (PostgreSQL), or the local clock (SQLite,
// whose parts all run on this machine).
var groupSchema = []string{
	`CREATE TABLE IF NOT EXISTS pgoltp_groups (name TEXT PRIMARY KEY, workload TEXT NOT NULL, parts INTEGER NOT NULL,
		created_us BIGINT NOT NULL, start_us BIGINT NOT NULL DEFAULT 0, started_by INTEGER NOT NULL DEFAULT 0,
		checked_by INTEGER NOT NULL DEFAULT 0)`,
	`CREATE TABLE IF NOT EXISTS pgoltp_group_parts (group_name TEXT NOT NULL, part INTEGER NOT NULL, run_id TEXT NOT NULL,
		owner TEXT NOT NULL, status TEXT NOT NULL, skew_us BIGINT NOT NULL, joined_us BIGINT NOT NULL,
		heartbeat_us BIGINT NOT NULL, ended_us BIGINT NOT NULL DEFAULT 0, note TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (group_name, part))`,
	groupParamsDDL,
}

// Group is a group's row: its shape and, once all parts were present, the
// agreed start.
type Group struct {
	Name      string    `json:"name"`
	Workload  string    `json:"workload"`
	Parts     int       `json:"parts"`
	Created   time.Time `json:"created"`
	Start     time.Time `json:"start"`      // zero until all parts registered
	StartedBy int       `json:"started_by"` // the part that set Start
	CheckedBy int       `json:"checked_by"` // the part that ran the consistency check; 0 = none
}

// GroupPart is one part's row.
type GroupPart struct {
	Part      int           `json:"part"`
	RunID     string        `json:"run_id"`
	Owner     string        `json:"owner"` // host:pid
	Status    string        `json:"status"`
	Skew      time.Duration `json:"skew_ns"` // store clock minus the part's clock
	Joined    time.Time     `json:"joined"`
	Heartbeat time.Time     `json:"heartbeat"`
	Ended     time.Time     `json:"ended"`
	Note      string        `json:"note,omitempty"`
}

// ErrGroupShape says a part registered with a different workload or number
// of parts than the group was created with.
var ErrGroupShape = errors.New("group shape differs")

// Postgres says whether the store is a PostgreSQL database (--results-dsn).
func (s *Store) Postgres() bool { return s.postgres }

// ServerClock reads the store server's clock (PostgreSQL's clock_timestamp())
// and the round trip it took; SQLite has no server: the local clock, zero.
func (s *Store) ServerClock(ctx context.Context) (server time.Time, sent, received time.Time, err error) {
	sent = time.Now()
	if !s.postgres {
		return sent, sent, sent, nil
	}
	var us int64
	err = s.db.QueryRowContext(ctx, `SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint`).Scan(&us)
	received = time.Now()
	return time.UnixMicro(us), sent, received, err
}

// JoinGroup registers part p in group g, creating the group if it is new, in
// one transaction, and returns the group as it is and the part's earlier
// row if there was one. p is inserted only when the part has no row and the
// group has not started; otherwise the caller decides (internal/group). A
// group of another shape is ErrGroupShape.
func (s *Store) JoinGroup(ctx context.Context, g Group, p GroupPart) (Group, *GroupPart, error) {
	var out Group
	var existing *GroupPart
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.bind(`INSERT INTO pgoltp_groups (name, workload, parts, created_us) VALUES (?, ?, ?, ?)
			ON CONFLICT (name) DO NOTHING`), g.Name, g.Workload, g.Parts, micros(g.Created)); err != nil {
			return err
		}
		var err error
		if out, err = readGroup(ctx, s, tx, g.Name); err != nil {
			return err
		}
		if out.Workload != g.Workload || out.Parts != g.Parts {
			return fmt.Errorf("%w: group %s is %d parts of %s, not %d of %s", ErrGroupShape, g.Name, out.Parts, out.Workload, g.Parts, g.Workload)
		}
		if existing, err = readPart(ctx, s, tx, g.Name, p.Part); err != nil || existing != nil || !out.Start.IsZero() {
			return err
		}
		return s.writePart(ctx, tx, g.Name, p, false)
	})
	if err != nil {
		return Group{}, nil, fmt.Errorf("registering in group %s in %s: %w", g.Name, s.where, err)
	}
	return out, existing, nil
}

// ReplaceGroupPart registers p again in place of the part's earlier row (a
// part that gave up, or died, before the group started).
func (s *Store) ReplaceGroupPart(ctx context.Context, name string, p GroupPart) error {
	return s.inTx(ctx, func(tx *sql.Tx) error { return s.writePart(ctx, tx, name, p, true) })
}

func (s *Store) writePart(ctx context.Context, tx *sql.Tx, name string, p GroupPart, replace bool) error {
	if replace {
		if _, err := tx.ExecContext(ctx, s.bind(`DELETE FROM pgoltp_group_parts WHERE group_name = ? AND part = ?`), name, p.Part); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, s.bind(`INSERT INTO pgoltp_group_parts (group_name, part, run_id, owner, status, skew_us, joined_us, heartbeat_us, note)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`), name, p.Part, p.RunID, p.Owner, p.Status, int64(p.Skew/time.Microsecond),
		micros(p.Joined), micros(p.Heartbeat), p.Note)
	return err
}

func readPart(ctx context.Context, s *Store, q rowQuerier, name string, part int) (*GroupPart, error) {
	p := GroupPart{Part: part}
	var skew, joined, beat, ended int64
	err := q.QueryRowContext(ctx, s.bind(`SELECT run_id, owner, status, skew_us, joined_us, heartbeat_us, ended_us, note FROM pgoltp_group_parts WHERE group_name = ? AND part = ?`), name, part).
		Scan(&p.RunID, &p.Owner, &p.Status, &skew, &joined, &beat, &ended, &p.Note)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p.Skew = time.Duration(skew) * time.Microsecond
	p.Joined, p.Heartbeat, p.Ended = fromMicros(joined), fromMicros(beat), fromMicros(ended)
	return &p, nil
}

type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func readGroup(ctx context.Context, s *Store, q rowQuerier, name string) (Group, error) {
	g := Group{Name: name}
	var created, start int64
	err := q.QueryRowContext(ctx, s.bind(`SELECT workload, parts, created_us, start_us, started_by, checked_by FROM pgoltp_groups WHERE name = ?`), name).
		Scan(&g.Workload, &g.Parts, &created, &start, &g.StartedBy, &g.CheckedBy)
	if errors.Is(err, sql.ErrNoRows) {
		return g, ErrNotFound
	}
	g.Created, g.Start = fromMicros(created), fromMicros(start)
	return g, err
}

// Group reads a group and its parts (in part order); ErrNotFound when there
// is no such group.
func (s *Store) Group(ctx context.Context, name string) (Group, []GroupPart, error) {
	g, err := readGroup(ctx, s, s.db, name)
	if err != nil {
		return g, nil, err
	}
	var parts []GroupPart
	err = s.each(ctx, `SELECT part, run_id, owner, status, skew_us, joined_us, heartbeat_us, ended_us, note FROM pgoltp_group_parts WHERE group_name = ? ORDER BY part`, name,
		func(rs *sql.Rows) error {
			var p GroupPart
			var skew, joined, beat, ended int64
			if err := rs.Scan(&p.Part, &p.RunID, &p.Owner, &p.Status, &skew, &joined, &beat, &ended, &p.Note); err != nil {
				return err
			}
			p.Skew = time.Duration(skew) * time.Microsecond
			p.Joined, p.Heartbeat, p.Ended = fromMicros(joined), fromMicros(beat), fromMicros(ended)
			parts = append(parts, p)
			return nil
		})
	if err != nil {
		return g, nil, fmt.Errorf("reading group %s: %w", name, err)
	}
	return g, parts, nil
}

// SetGroupStart sets the group's agreed start unless one is set already, and
// says whether this call set it.
func (s *Store) SetGroupStart(ctx context.Context, name string, part int, start time.Time) (bool, error) {
	return s.claim(ctx, `UPDATE pgoltp_groups SET start_us = ?, started_by = ? WHERE name = ? AND start_us = 0`, micros(start), part, name)
}

// ClaimGroupCheck makes part the one that checks the group's database after
// the run, unless another part did already; it says whether this call did.
func (s *Store) ClaimGroupCheck(ctx context.Context, name string, part int) (bool, error) {
	return s.claim(ctx, `UPDATE pgoltp_groups SET checked_by = ? WHERE name = ? AND checked_by = 0`, part, name)
}

func (s *Store) claim(ctx context.Context, q string, args ...any) (bool, error) {
	res, err := s.db.ExecContext(ctx, s.bind(q), args...)
	if err != nil {
		return false, fmt.Errorf("writing %s: %w", s.where, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// UpdateGroupPart writes a part's status, heartbeat, end (zero: unchanged)
// and note (empty: unchanged).
func (s *Store) UpdateGroupPart(ctx context.Context, name string, part int, status string, heartbeat, ended time.Time, note string) error {
	q, args := `UPDATE pgoltp_group_parts SET status = ?, heartbeat_us = ?`, []any{status, micros(heartbeat)}
	if !ended.IsZero() {
		q, args = q+`, ended_us = ?`, append(args, micros(ended))
	}
	if note != "" {
		q, args = q+`, note = ?`, append(args, note)
	}
	_, err := s.db.ExecContext(ctx, s.bind(q+` WHERE group_name = ? AND part = ?`), append(args, name, part)...)
	if err != nil {
		return fmt.Errorf("updating part %d of group %s in %s: %w", part, name, s.where, err)
	}
	return nil
}

// GroupHeartbeat says part is alive at (its estimate of the store's clock).
func (s *Store) GroupHeartbeat(ctx context.Context, name string, part int, at time.Time) error {
	_, err := s.db.ExecContext(ctx, s.bind(`UPDATE pgoltp_group_parts SET heartbeat_us = ? WHERE group_name = ? AND part = ?`), micros(at), name, part)
	return err
}

// OwnerAlive says whether the process named by owner (host:pid) may still be
// running: false only when it is of this host and gone.
func OwnerAlive(owner string) bool {
	return effectiveStatus(Running, owner) == Running
}

// RunGroups maps the id of every run that is a part of a group to the group's
// name, for the run list.
func (s *Store) RunGroups(ctx context.Context) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT run_id, group_name FROM pgoltp_group_parts`)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.where, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, g string
		if err := rows.Scan(&id, &g); err != nil {
			return nil, err
		}
		out[id] = g
	}
	return out, rows.Err()
}
