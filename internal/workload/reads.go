package workload

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/adminconn"
)

// Reads on standbys (issue 31): a run may send its read-only transactions
// to standbys of the server it writes to (--reads standby, --read-dsn),
// round-robin per connection. Its writes stay on the primary.

// ReadNode is a standby that takes a run's read-only transactions.
type ReadNode struct {
	Name string // standby1, ..., or "read-dsn"
	DSN  string // may hold a password: never printed or stored
}

// Reads is where a run's read-only transactions go; the zero value keeps
// them on the primary.
type Reads struct {
	Nodes []ReadNode
	// PrimaryDSN is the primary reached straight (never through a pooler):
	// catching up and the lag samples read its WAL position there.
	PrimaryDSN string
}

// On says read-only work goes to standbys.
func (r Reads) On() bool { return len(r.Nodes) > 0 }

// Names are the standbys' names, comma-separated.
func (r Reads) Names() string {
	names := make([]string, len(r.Nodes))
	for i, n := range r.Nodes {
		names[i] = n.Name
	}
	return strings.Join(names, ",")
}

// NodeOf is the standby read connection i goes to: round-robin per
// connection.
func (r Reads) NodeOf(i int) int { return i % len(r.Nodes) }

// catchUpFor bounds the wait for a standby to replay what the primary had
// written when the run started.
const catchUpFor = time.Minute

// CatchUp waits until every standby has replayed the primary's WAL up to its
// position now: the database, a load or the functions just installed on the
// primary are then on the standbys too.
func (r Reads) CatchUp(ctx context.Context) error {
	if !r.On() {
		return nil
	}
	target, err := walPosition(ctx, r.PrimaryDSN, sqlPrimaryLSN)
	if err != nil {
		return fmt.Errorf("reading the primary's WAL position: %w", err)
	}
	for _, n := range r.Nodes {
		if err := waitReplayed(ctx, n, target); err != nil {
			return err
		}
	}
	return nil
}

func waitReplayed(ctx context.Context, n ReadNode, target int64) error {
	conn, err := adminconn.Connect(ctx, n.DSN)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", n.Name, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	deadline := time.Now().Add(catchUpFor)
	for {
		var replayed int64
		if err := conn.QueryRow(ctx, sqlReplayLSN).Scan(&replayed); err != nil {
			return fmt.Errorf("reading %s's replay position: %w", n.Name, err)
		}
		if replayed >= target {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s has not replayed the primary's WAL up to where it was at the start in %s (%d bytes behind)", n.Name, catchUpFor, target-replayed)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// WAL positions as bytes from 0/0. A server not in recovery has no replay
// position: -1.
const (
	sqlPrimaryLSN = `SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::int8`
	sqlReplayLSN  = `SELECT coalesce((pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::int8, -1)`
)

func walPosition(ctx context.Context, dsn, sql string) (int64, error) {
	conn, err := adminconn.Connect(ctx, dsn)
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return queryLSN(ctx, conn, sql)
}

func queryLSN(ctx context.Context, conn *pgx.Conn, sql string) (int64, error) {
	var lsn int64
	err := conn.QueryRow(ctx, sql).Scan(&lsn)
	return lsn, err
}

// ReadSplit is where a run's transactions went and how stale its reads on
// the standbys were: the summary's, the stored run's (Params, Notes) and
// the JSON's.
type ReadSplit struct {
	Nodes      []NodeShare `json:"nodes"` // the primary first
	Lag        []NodeLag   `json:"lag"`
	LagMeasure string      `json:"lag_measure"`
}

// NodeShare is one node's part of a run's transactions.
type NodeShare struct {
	Node         string  `json:"node"`
	Role         string  `json:"role"` // primary, standby
	Transactions int64   `json:"transactions"`
	Share        float64 `json:"share"` // of all the run's transactions, 0..1
}

// NewSplit is the split of a run whose primary committed primary
// transactions and each read node perNode[i].
func NewSplit(primary int64, nodes []ReadNode, perNode []int64, lag []NodeLag) *ReadSplit {
	s := &ReadSplit{Lag: lag, LagMeasure: LagMeasure}
	total := primary
	for _, n := range perNode {
		total += n
	}
	share := func(n int64) float64 {
		if total == 0 {
			return 0
		}
		return float64(n) / float64(total)
	}
	s.Nodes = append(s.Nodes, NodeShare{Node: "primary", Role: "primary", Transactions: primary, Share: share(primary)})
	for i, n := range nodes {
		s.Nodes = append(s.Nodes, NodeShare{Node: n.Name, Role: "standby", Transactions: perNode[i], Share: share(perNode[i])})
	}
	return s
}

// Lines are the split and the lag, one line each, for the summary and the
// stored run's notes.
func (s *ReadSplit) Lines() []string {
	if s == nil {
		return nil
	}
	parts := make([]string, len(s.Nodes))
	for i, n := range s.Nodes {
		parts[i] = fmt.Sprintf("%s %d (%.1f%%)", n.Node, n.Transactions, 100*n.Share)
	}
	lines := []string{"read/write split (transactions per node): " + strings.Join(parts, ", ")}
	for _, l := range s.Lag {
		lines = append(lines, l.line())
	}
	return append(lines, "read lag measure: "+s.LagMeasure)
}

// Params are the split as stored parameters.
func (s *ReadSplit) Params() []Param {
	if s == nil {
		return nil
	}
	var ps []Param
	for _, n := range s.Nodes {
		ps = append(ps, Param{"reads." + n.Node + ".transactions", fmt.Sprint(n.Transactions)},
			Param{"reads." + n.Node + ".share", fmt.Sprintf("%.4f", n.Share)})
	}
	for _, l := range s.Lag {
		ps = append(ps, Param{"reads." + l.Node + ".lag_p99_s", fmt.Sprintf("%.3f", l.TimeP99.Seconds())},
			Param{"reads." + l.Node + ".lag_p99_bytes", fmt.Sprint(l.BytesP99)})
	}
	return ps
}
