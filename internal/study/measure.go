package study

import (
	"context"
	"time"

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/pgoltp/pgoltp/internal/collect"
)

// Snapshot is what the server says about the benchmark database at one moment.
// Counters are cumulative; a run's effect is the difference of two snapshots.
type Snapshot struct {
	WALBytes    float64 `json:"wal_bytes"`   // WAL position (pg_current_wal_lsn, every major from 10)
	DBBytes     float64 `json:"db_bytes"`    // pg_database_size
	IndexBytes  float64 `json:"index_bytes"` // indexes of the user tables
	Checkpoints float64 `json:"checkpoints"` // timed + requested
	Autovacuums float64 `json:"autovacuums"` // autovacuum runs on user tables
	DeadTuples  float64 `json:"dead_tuples"` // a gauge, not a counter
	Updates     float64 `json:"updates"`
	HotUpdates  float64 `json:"hot_updates"`
}

// statsDelay is how long the statistics of ended sessions may take to show
// (before 15 the statistics collector receives them every 500 ms).
const statsDelay = time.Second

// Read takes a Snapshot of the database dsn names. settle waits for the
// statistics of sessions that just ended to arrive first.
func Read(ctx context.Context, dsn string, major int, settle bool) (Snapshot, error) {
	if settle {
		select {
		case <-ctx.Done():
			return Snapshot{}, ctx.Err()
		case <-time.After(statsDelay):
		}
	}
	conn, err := adminconn.Connect(ctx, dsn)
	if err != nil {
		return Snapshot{}, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var s Snapshot
	q, _ := collect.SQL(collect.DatabaseSnapshot, major) // every major has a variant
	err = conn.QueryRow(ctx, q).Scan(&s.WALBytes, &s.DBBytes, &s.IndexBytes, &s.Checkpoints,
		&s.Autovacuums, &s.DeadTuples, &s.Updates, &s.HotUpdates)
	return s, err
}

// Sub is the change from before to s; DeadTuples stays the later reading.
func (s Snapshot) Sub(before Snapshot) Snapshot {
	return Snapshot{
		WALBytes: s.WALBytes - before.WALBytes, DBBytes: s.DBBytes - before.DBBytes, IndexBytes: s.IndexBytes - before.IndexBytes,
		Checkpoints: s.Checkpoints - before.Checkpoints, Autovacuums: s.Autovacuums - before.Autovacuums,
		DeadTuples: s.DeadTuples, Updates: s.Updates - before.Updates, HotUpdates: s.HotUpdates - before.HotUpdates,
	}
}
