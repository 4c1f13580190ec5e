package collect

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/adminconn"
)

// Standby is a standby of the run's primary, read straight by the
// collectors (issue 31): its WAL receiver, its own replay delay and its
// recovery conflicts, which the primary's pg_stat_replication cannot show.
type Standby struct {
	Name string // the series' key: the standby's name (its application_name in the lab)
	DSN  string // the run's database on the standby (conflicts are per database)
}

// standbyConflicts are pg_stat_database_conflicts' counters, by the type a
// series is keyed with (PostgreSQL 10 on).
var standbyConflicts = []string{"tablespace", "lock", "snapshot", "bufferpin", "deadlock"}

// standbyQueries are what a standby is asked each tick: its WAL receiver,
// its replay, its conflicts. Each returns one row, or none (no receiver).
func standbyQueries() []tickQuery {
	receiver := func(lsns string) string {
		return `SELECT status, ` + lsns + `,
			coalesce(extract(epoch FROM last_msg_receipt_time - last_msg_send_time), 0)::float8
			FROM pg_stat_wal_receiver`
	}
	return []tickQuery{
		{name: "pg_stat_wal_receiver", since: 13,
			sql: receiver(`coalesce((written_lsn - '0/0'::pg_lsn), 0)::float8, coalesce((flushed_lsn - '0/0'::pg_lsn), 0)::float8`)},
		{name: "pg_stat_wal_receiver (received_lsn)", until: 12,
			sql: receiver(`coalesce((received_lsn - '0/0'::pg_lsn), 0)::float8, coalesce((received_lsn - '0/0'::pg_lsn), 0)::float8`)},
		// The replay delay is the age of the last transaction replayed only
		// while WAL waits to be replayed: on a caught-up standby with no new
		// commits that age grows and says nothing.
		{name: "pg_last_xact_replay_timestamp",
			sql: `SELECT CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
				ELSE coalesce(extract(epoch FROM now() - pg_last_xact_replay_timestamp()), 0) END::float8,
				coalesce(pg_last_wal_replay_lsn() - '0/0'::pg_lsn, 0)::float8,
				coalesce(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()), 0)::float8`},
		{name: "pg_stat_database_conflicts",
			sql: `SELECT confl_tablespace::float8, confl_lock::float8, confl_snapshot::float8, confl_bufferpin::float8, confl_deadlock::float8
				FROM pg_stat_database_conflicts WHERE datname = current_database()`},
	}
}

// standbyRetry is how long a standby that could not be reached is left
// alone: each try may take the connect timeout out of a tick.
const standbyRetry = 10 * time.Second

// standbySampler reads one standby on a connection of its own. A standby
// that cannot be reached is a warning (once) and no points, never a lost
// server: it is retried each tick.
type standbySampler struct {
	Standby
	cfg     *pgx.ConnConfig
	conn    *pgx.Conn
	queries []tickQuery
	timeout time.Duration // to connect: a dead standby must not hold up the tick
	retryAt time.Time     // after a failed connect, not before: one stalled tick in standbyRetry
	warned  bool
	prevAt  time.Time
	prev    map[string]float64 // counters at prevAt
	state   string             // the receiver's status at the last tick ("" before the first)
}

func newStandbySampler(sb Standby, major int, interval time.Duration) (*standbySampler, error) {
	cfg, err := adminconn.Config(sb.DSN)
	if err != nil {
		return nil, fmt.Errorf("standby %s: %w", sb.Name, err)
	}
	cfg.RuntimeParams["application_name"] = "pgoltp collector"
	cfg.RuntimeParams["statement_timeout"] = "10s"
	p := &standbySampler{Standby: sb, cfg: cfg, timeout: min(2*time.Second, interval)}
	for _, q := range standbyQueries() {
		if runsOn(q.since, q.until, major) {
			p.queries = append(p.queries, q)
		}
	}
	return p, nil
}

// sample reads the standby once: gauges of its receiver and replay, rates
// of its conflicts, and an event when its receiver's status changes.
func (p *standbySampler) sample(ctx context.Context, at time.Time, add func(metric, key string, v float64), event func(Event)) error {
	if p.conn == nil {
		if at.Before(p.retryAt) {
			return nil
		}
		cctx, cancel := context.WithTimeout(ctx, p.timeout)
		conn, err := pgx.ConnectConfig(cctx, p.cfg)
		cancel()
		if err != nil {
			p.retryAt = at.Add(standbyRetry)
			return fmt.Errorf("standby %s: %w", p.Name, err)
		}
		p.conn, p.prevAt = conn, time.Time{}
	}
	b := &pgx.Batch{}
	for _, q := range p.queries {
		b.Queue(q.sql)
	}
	br := p.conn.SendBatch(ctx, b)
	vals := make([][]any, len(p.queries))
	for i := range p.queries {
		row, err := oneRow(br)
		if err != nil {
			br.Close()
			p.close(ctx)
			return fmt.Errorf("standby %s: %s: %w", p.Name, p.queries[i].name, err)
		}
		vals[i] = row
	}
	if err := br.Close(); err != nil {
		p.close(ctx)
		return fmt.Errorf("standby %s: %w", p.Name, err)
	}
	p.record(at, vals, add, event)
	return nil
}

// oneRow reads a result's first row (nil when it has none).
func oneRow(br pgx.BatchResults) ([]any, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []any
	if rows.Next() {
		if out, err = rows.Values(); err != nil {
			return nil, err
		}
	}
	return out, rows.Err()
}

// record turns one tick's rows (in standbyQueries' order: receiver,
// replay, conflicts) into points and events.
func (p *standbySampler) record(at time.Time, vals [][]any, add func(metric, key string, v float64), event func(Event)) {
	cur := map[string]float64{}
	state := "stopped" // no WAL receiver row: none runs
	if r := vals[0]; r != nil {
		if st, ok := r[0].(string); ok {
			state = st
		} else {
			state = "unknown" // not pg_read_all_stats: the row's columns are NULL
		}
		cur["received"], cur["flushed"] = asFloat(r[1]), asFloat(r[2])
		add("standby.receiver_message_ms", p.Name, 1000*asFloat(r[3]))
	}
	streaming := 0.0
	if state == "streaming" {
		streaming = 1
	}
	add("standby.receiver_streaming", p.Name, streaming)
	if state != p.state {
		event(Event{At: at, Kind: "replication", Detail: fmt.Sprintf("%s: WAL receiver %s", p.Name, state)})
		p.state = state
	}
	if r := vals[1]; r != nil {
		add("standby.replay_delay_s", p.Name, asFloat(r[0]))
		add("standby.replay_gap_mb", p.Name, asFloat(r[2])/1e6)
		cur["replayed"] = asFloat(r[1])
	}
	if r := vals[2]; r != nil {
		for i, kind := range standbyConflicts {
			cur["conflicts|"+kind] = asFloat(r[i])
		}
	}
	if secs := at.Sub(p.prevAt).Seconds(); !p.prevAt.IsZero() && secs > 0 {
		rate := func(metric, counter, key string, scale float64) {
			if before, ok := p.prev[counter]; ok && cur[counter] >= before {
				add(metric, key, (cur[counter]-before)*scale/secs)
			}
		}
		rate("standby.received_mb_per_s", "received", p.Name, 1e-6)
		rate("standby.replayed_mb_per_s", "replayed", p.Name, 1e-6)
		for _, kind := range standbyConflicts {
			rate("standby.conflicts."+kind+"_per_s", "conflicts|"+kind, p.Name, 1)
		}
	}
	p.prevAt, p.prev = at, cur
}

func asFloat(v any) float64 {
	f, _ := v.(float64)
	return f
}

func (p *standbySampler) close(ctx context.Context) {
	if p.conn != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		p.conn.Close(cctx)
		cancel()
		p.conn = nil
	}
}
