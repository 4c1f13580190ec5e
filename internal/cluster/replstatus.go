package cluster

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/pgoltp/pgoltp/internal/adminconn"
)

// NodeStatus is one node of a cluster with standbys, in 'cluster status':
// its role, and for a standby what the primary's pg_stat_replication says
// of it (LSNs sent, written, flushed and replayed; lag in bytes behind the
// primary's current WAL position and in time).
type NodeStatus struct {
	Name       string  `json:"name"`
	Role       string  `json:"role"` // primary, standby (in recovery), or what the server says it is
	Running    bool    `json:"running"`
	Port       int     `json:"port"`
	DataDir    string  `json:"data_dir"`
	LogFile    string  `json:"log_file"`
	State      string  `json:"state,omitempty"`      // the WAL sender's: streaming, catchup, ...
	SyncState  string  `json:"sync_state,omitempty"` // sync, quorum, potential, async
	CurrentLSN string  `json:"current_lsn,omitempty"`
	SentLSN    string  `json:"sent_lsn,omitempty"`
	WriteLSN   string  `json:"write_lsn,omitempty"`
	FlushLSN   string  `json:"flush_lsn,omitempty"`
	ReplayLSN  string  `json:"replay_lsn,omitempty"`
	LagBytes   int64   `json:"lag_bytes"`
	ReplayLag  float64 `json:"replay_lag_seconds"`
	// What a running standby says of itself, which it answers when the
	// primary is down or cut off: the WAL it has received
	// (pg_last_wal_receive_lsn) and replayed (pg_last_wal_replay_lsn).
	OwnReceiveLSN string `json:"own_receive_lsn,omitempty"`
	OwnReplayLSN  string `json:"own_replay_lsn,omitempty"`
}

// replicationSQL is the primary's view of its standbys (PostgreSQL 10 on).
const replicationSQL = `SELECT application_name, COALESCE(state, ''), COALESCE(sync_state, ''),
	COALESCE(sent_lsn::text, ''), COALESCE(write_lsn::text, ''), COALESCE(flush_lsn::text, ''), COALESCE(replay_lsn::text, ''),
	COALESCE(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn), 0)::bigint,
	COALESCE(EXTRACT(epoch FROM replay_lag), 0)::float8
	FROM pg_stat_replication`

// nodeStatuses is the primary and its standbys (nil without standbys).
func (c *Cluster) nodeStatuses(ctx context.Context, primaryRunning bool) []NodeStatus {
	if len(c.Standbys) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	nodes := []NodeStatus{{Name: c.Name(), Role: "primary", Running: primaryRunning, Port: c.Port, DataDir: c.DataDir, LogFile: c.LogFile}}
	byName := map[string]NodeStatus{}
	if primaryRunning {
		if conn, err := adminconn.Connect(ctx, c.DSN("postgres")); err == nil {
			_ = conn.QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&nodes[0].CurrentLSN)
			if rows, err := conn.Query(ctx, replicationSQL); err == nil {
				for rows.Next() {
					var n NodeStatus
					if rows.Scan(&n.Name, &n.State, &n.SyncState, &n.SentLSN, &n.WriteLSN, &n.FlushLSN, &n.ReplayLSN, &n.LagBytes, &n.ReplayLag) == nil {
						byName[n.Name] = n
					}
				}
				rows.Close()
			}
			conn.Close(ctx)
		}
	}
	for _, node := range c.Nodes() {
		n := byName[node.name]
		n.Name, n.Port, n.DataDir, n.LogFile = node.name, node.Port, node.DataDir, node.LogFile
		n.Running = node.Running(ctx)
		n.Role = "standby"
		if n.Running {
			n.Role, n.OwnReceiveLSN, n.OwnReplayLSN = node.ownView(ctx)
		}
		nodes = append(nodes, n)
	}
	return nodes
}

// role is what the running server says it is: standby while in recovery.
func (c *Cluster) role(ctx context.Context) string {
	role, _, _ := c.ownView(ctx)
	return role
}

// ownView is what the running server says it is (standby while in
// recovery) and, as a standby, the WAL it has received and replayed.
func (c *Cluster) ownView(ctx context.Context) (role, receiveLSN, replayLSN string) {
	conn, err := adminconn.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return "unreachable", "", ""
	}
	defer conn.Close(ctx)
	var recovering bool
	if err := conn.QueryRow(ctx, `SELECT pg_is_in_recovery(), COALESCE(pg_last_wal_receive_lsn()::text, ''),
		COALESCE(pg_last_wal_replay_lsn()::text, '')`).Scan(&recovering, &receiveLSN, &replayLSN); err != nil {
		return "unreachable", "", ""
	}
	if recovering {
		return "standby", receiveLSN, replayLSN
	}
	return "primary", "", ""
}

// writeNodes prints the nodes as a table.
func writeNodes(w io.Writer, nodes []NodeStatus) {
	if len(nodes) == 0 {
		return
	}
	// sent to replay: the primary's view of each standby; received and
	// replayed: the standby's own.
	fmt.Fprintf(w, "  %-10s %-8s %-8s %6s  %-10s %-9s %-12s %-12s %-12s %-12s %-12s %-12s %10s %9s\n",
		"node", "role", "state", "port", "streaming", "sync", "sent", "write", "flush", "replay", "received", "replayed", "lag bytes", "lag")
	for _, n := range nodes {
		state := "stopped"
		if n.Running {
			state = "running"
		}
		if n.Role == "primary" && n.Name == "primary" {
			fmt.Fprintf(w, "  %-10s %-8s %-8s %6d  %-10s %-9s %-12s\n", n.Name, n.Role, state, n.Port, "-", "-", n.CurrentLSN)
			continue
		}
		fmt.Fprintf(w, "  %-10s %-8s %-8s %6d  %-10s %-9s %-12s %-12s %-12s %-12s %-12s %-12s %10d %8.3fs\n", n.Name, n.Role, state, n.Port,
			dash(n.State), dash(n.SyncState), dash(n.SentLSN), dash(n.WriteLSN), dash(n.FlushLSN), dash(n.ReplayLSN),
			dash(n.OwnReceiveLSN), dash(n.OwnReplayLSN), n.LagBytes, n.ReplayLag)
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
