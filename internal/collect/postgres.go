package collect

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgSampler reads the cumulative statistics views once per tick in one round
// trip (a pipelined batch) and turns them into per-second rates. Which views
// exist depends on the major version; each query names the majors it runs on
// (see Matrix), and a view a major lacks is a panel the report leaves out:
//
//	10-13   pg_stat_database, pg_stat_bgwriter, WAL position from pg_current_wal_lsn
//	14-16   + pg_stat_wal (bytes, full-page images); 16 + pg_stat_io
//	17-18   checkpoints moved to pg_stat_checkpointer
type pgSampler struct {
	major   int
	queries []tickQuery

	prevAt     time.Time
	prev       map[string]float64 // counter name -> last value
	lastCkpt   time.Time          // pg_control's latest checkpoint time
	ckptSeen   [2]float64         // timed, requested counts already given to a checkpoint's event
	heldCkpt   *heldCheckpoint    // an ended checkpoint whose count has not risen yet
	waits      map[[2]string]int64
	tableOIDs  []uint32
	tableNames map[uint32]string
	senders    map[string]string // the WAL senders at the previous tick (nil before the first)
}

// tickQuery is one statement of the per-tick batch and how to read its rows.
type tickQuery struct {
	name  string
	since int // oldest major it runs on (0: every supported one)
	until int // newest major it runs on (0: no limit)
	sql   string
	args  func(*pgSampler) []any
	read  func(s *pgSampler, rows pgx.Rows, t *tick) error
}

// tick is what one sampling round collected before rates are computed.
type tick struct {
	counters map[string]float64 // cumulative counters, by name (and key after a "|")
	gauges   map[string]float64
	ckptTime time.Time
	senders  map[string]string // WAL sender by standby: "state, sync_state"
}

func newPGSampler(major int) *pgSampler {
	s := &pgSampler{major: major, prev: map[string]float64{}, waits: map[[2]string]int64{}, tableNames: map[uint32]string{}}
	for _, q := range tickQueries() {
		if runsOn(q.since, q.until, major) {
			s.queries = append(s.queries, q)
		}
	}
	return s
}

func runsOn(since, until, major int) bool {
	return major >= since && (until == 0 || major <= until)
}

// tickQueries is every per-tick query pgoltp knows, for every major.
func tickQueries() []tickQuery {
	var qs []tickQuery
	qs = append(qs, tickQuery{name: "pg_stat_database",
		sql: `SELECT xact_commit::float8, xact_rollback::float8, blks_read::float8, blks_hit::float8, temp_bytes::float8, deadlocks::float8,
			(tup_returned + tup_fetched)::float8, (tup_inserted + tup_updated + tup_deleted)::float8
			FROM pg_stat_database WHERE datname = current_database()`,
		read: func(s *pgSampler, rows pgx.Rows, t *tick) error {
			return scanCounters(rows, t, "commits", "rollbacks", "blks_read", "blks_hit", "temp_bytes", "deadlocks", "tup_read", "tup_written")
		}})
	qs = append(qs, tickQuery{name: "pg_stat_checkpointer", since: 17,
		sql: `SELECT c.num_timed::float8, c.num_requested::float8, c.buffers_written::float8, b.buffers_clean::float8, 0::float8
				FROM pg_stat_checkpointer c, pg_stat_bgwriter b`,
		read: readCheckpoints},
		tickQuery{name: "pg_stat_bgwriter", until: 16,
			sql: `SELECT checkpoints_timed::float8, checkpoints_req::float8, buffers_checkpoint::float8, buffers_clean::float8, buffers_backend::float8
				FROM pg_stat_bgwriter`,
			read: readCheckpoints})
	qs = append(qs, tickQuery{name: "pg_control_checkpoint",
		sql: `SELECT checkpoint_time FROM pg_control_checkpoint()`,
		read: func(s *pgSampler, rows pgx.Rows, t *tick) error {
			for rows.Next() {
				if err := rows.Scan(&t.ckptTime); err != nil {
					return err
				}
			}
			return rows.Err()
		}})
	qs = append(qs, tickQuery{name: "pg_stat_wal", since: 14,
		sql: `SELECT wal_records::float8, wal_fpi::float8, wal_bytes::float8 FROM pg_stat_wal`,
		read: func(s *pgSampler, rows pgx.Rows, t *tick) error {
			return scanCounters(rows, t, "wal_records", "wal_fpi", "wal_bytes")
		}},
		tickQuery{name: "pg_current_wal_lsn", until: 13,
			sql:  `SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::float8`,
			read: func(s *pgSampler, rows pgx.Rows, t *tick) error { return scanCounters(rows, t, "wal_bytes") }})
	qs = append(qs, tickQuery{name: "pg_stat_io", since: 16,
		sql: `SELECT backend_type, coalesce(sum(reads), 0)::float8, coalesce(sum(writes), 0)::float8, coalesce(sum(fsyncs), 0)::float8
				FROM pg_stat_io GROUP BY backend_type`,
		read: func(s *pgSampler, rows pgx.Rows, t *tick) error {
			for rows.Next() {
				var bt string
				var r, w, f float64
				if err := rows.Scan(&bt, &r, &w, &f); err != nil {
					return err
				}
				if r+w+f > 0 {
					t.counters["io_reads|"+bt], t.counters["io_writes|"+bt], t.counters["io_fsyncs|"+bt] = r, w, f
				}
			}
			return rows.Err()
		}})
	qs = append(qs, tickQuery{name: "pg_stat_activity",
		sql: `SELECT coalesce(wait_event_type, 'CPU'), coalesce(wait_event, 'running'), state, count(*)
			FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
			GROUP BY 1, 2, 3`,
		read: func(s *pgSampler, rows pgx.Rows, t *tick) error {
			var total, active, idleTx float64
			for rows.Next() {
				var wt, we string
				var state *string
				var n int64
				if err := rows.Scan(&wt, &we, &state, &n); err != nil {
					return err
				}
				total += float64(n)
				st := ""
				if state != nil {
					st = *state
				}
				switch st {
				case "active":
					active += float64(n)
					s.waits[[2]string{wt, we}] += n
				case "idle in transaction", "idle in transaction (aborted)":
					idleTx += float64(n)
				}
			}
			t.gauges["sessions.total"], t.gauges["sessions.active"], t.gauges["sessions.idle_in_xact"] = total, active, idleTx
			return rows.Err()
		}})
	// The oldest open transaction of the clients: a long-running one holds
	// back vacuum, and on a soak run of days it decides where bloat goes.
	qs = append(qs, tickQuery{name: "pg_stat_activity (longest transaction)",
		sql: `SELECT coalesce(extract(epoch FROM max(now() - xact_start)), 0)::float8 FROM pg_stat_activity
			WHERE xact_start IS NOT NULL AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
		read: func(s *pgSampler, rows pgx.Rows, t *tick) error {
			for rows.Next() {
				var longest float64
				if err := rows.Scan(&longest); err != nil {
					return err
				}
				t.gauges["xact.longest_s"] = longest
			}
			return rows.Err()
		}})
	// Each standby's lag as the primary sees it (issue 31): no rows, and no
	// points, on a server without standbys. The lag columns are NULL when
	// the standby has replayed everything: nothing to wait for is 0.
	// The WAL senders' state and sync_state are gauges (streaming, a
	// synchronous standby: 1) and an event when they change.
	qs = append(qs, tickQuery{name: "pg_stat_replication",
		sql: `SELECT application_name, coalesce(extract(epoch FROM write_lag), 0)::float8,
			coalesce(extract(epoch FROM flush_lag), 0)::float8, coalesce(extract(epoch FROM replay_lag), 0)::float8,
			coalesce(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn), 0)::float8,
			coalesce(state, 'unknown'), coalesce(sync_state, 'unknown')
			FROM pg_stat_replication`,
		read: readReplication})
	qs = append(qs, tickQuery{name: "pg_stat_user_tables",
		sql:  `SELECT relid, n_dead_tup::float8 FROM pg_stat_user_tables WHERE relid = ANY($1)`,
		args: func(s *pgSampler) []any { return []any{s.tableOIDs} },
		read: func(s *pgSampler, rows pgx.Rows, t *tick) error {
			for rows.Next() {
				var oid uint32
				var dead float64
				if err := rows.Scan(&oid, &dead); err != nil {
					return err
				}
				t.gauges["table.dead_tuples|"+s.tableNames[oid]] = dead
			}
			return rows.Err()
		}})
	return qs
}

func readCheckpoints(s *pgSampler, rows pgx.Rows, t *tick) error {
	return scanCounters(rows, t, "ckpt_timed", "ckpt_req", "buffers_checkpoint", "buffers_clean", "buffers_backend")
}

func scanCounters(rows pgx.Rows, t *tick, names ...string) error {
	vals := make([]float64, len(names))
	dest := make([]any, len(names))
	for i := range vals {
		dest[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		for i, n := range names {
			t.counters[n] = vals[i]
		}
	}
	return rows.Err()
}

// probe drops the queries this server refuses (a view missing on a fork, a
// function the role may not call) so one failure cannot void every tick; it
// returns a warning for each.
func (s *pgSampler) probe(ctx context.Context, conn *pgx.Conn) []string {
	var warnings []string
	kept := s.queries[:0]
	for _, q := range s.queries {
		var args []any
		if q.args != nil {
			args = q.args(s)
		}
		rows, err := conn.Query(ctx, q.sql, args...)
		if err == nil {
			for rows.Next() {
			}
			rows.Close()
			err = rows.Err()
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("not sampling %s: %v", q.name, err))
			continue
		}
		kept = append(kept, q)
	}
	s.queries = kept
	return warnings
}

// sample runs one batch and appends the rates since the previous tick.
func (s *pgSampler) sample(ctx context.Context, conn *pgx.Conn, at time.Time, add func(metric, key string, v float64), event func(Event)) error {
	t := &tick{counters: map[string]float64{}, gauges: map[string]float64{}, senders: map[string]string{}}
	b := &pgx.Batch{}
	for _, q := range s.queries {
		var args []any
		if q.args != nil {
			args = q.args(s)
		}
		b.Queue(q.sql, args...)
	}
	br := conn.SendBatch(ctx, b)
	for _, q := range s.queries {
		rows, err := br.Query()
		if err == nil {
			err = q.read(s, rows, t)
			rows.Close()
		}
		if err != nil {
			br.Close()
			return fmt.Errorf("%s: %w", q.name, err)
		}
	}
	if err := br.Close(); err != nil {
		return err
	}

	for name, v := range t.gauges {
		metric, key := splitKey(name)
		add("pg."+metric, key, v)
	}
	if !s.prevAt.IsZero() {
		s.rates(at, t, add, event)
	}
	s.checkpointEvents(at, t, event)
	s.senderEvents(at, t, event)
	s.prevAt, s.prev = at, t.counters
	return nil
}

// rates appends the counters' rates since the previous tick, and what is
// derived from them (hit ratio, reads per transaction, deadlocks).
func (s *pgSampler) rates(at time.Time, t *tick, add func(metric, key string, v float64), event func(Event)) {
	secs := at.Sub(s.prevAt).Seconds()
	d := func(name string) (float64, bool) {
		prev, ok := s.prev[name]
		cur, ok2 := t.counters[name]
		if !ok || !ok2 || cur < prev { // reset or missing: no rate this tick
			return 0, false
		}
		return cur - prev, true
	}
	rate := func(metric, name string, scale float64) {
		if v, ok := d(name); ok && secs > 0 {
			_, key := splitKey(name)
			add(metric, key, v*scale/secs)
		}
	}
	rate("pg.xact.commits_per_s", "commits", 1)
	rate("pg.xact.rollbacks_per_s", "rollbacks", 1)
	rate("pg.blks.read_per_s", "blks_read", 1)
	rate("pg.blks.hit_per_s", "blks_hit", 1)
	rate("pg.temp.mb_per_s", "temp_bytes", 1e-6)
	rate("pg.tuples.read_per_s", "tup_read", 1)
	rate("pg.tuples.written_per_s", "tup_written", 1)
	rate("pg.wal.mb_per_s", "wal_bytes", 1e-6)
	rate("pg.wal.fpi_per_s", "wal_fpi", 1)
	rate("pg.wal.records_per_s", "wal_records", 1)
	rate("pg.buffers.checkpointer_per_s", "buffers_checkpoint", 1)
	rate("pg.buffers.bgwriter_per_s", "buffers_clean", 1)
	if s.major < 17 {
		rate("pg.buffers.backend_per_s", "buffers_backend", 1)
	}
	if read, ok := d("blks_read"); ok {
		if hit, ok := d("blks_hit"); ok && hit+read > 0 {
			add("pg.blks.hit_ratio_pct", "", 100*hit/(hit+read))
		}
		commits, ok1 := d("commits")
		rollbacks, ok2 := d("rollbacks")
		if ok1 && ok2 && commits+rollbacks > 0 {
			add("pg.blks.read_per_xact", "", read/(commits+rollbacks))
		}
	}
	if v, ok := d("deadlocks"); ok && v > 0 {
		event(Event{At: at, Kind: "deadlock", Detail: fmt.Sprintf("%.0f deadlock(s)", v)})
	}
	for name := range t.counters {
		switch metric, _ := splitKey(name); metric {
		case "io_reads", "io_writes", "io_fsyncs":
			rate("pg.io."+metric[3:]+"_per_s", name, 1)
		}
	}
}

// checkpointEvents emits one event per finished checkpoint, at the time it
// started (pg_control's checkpoint time) when the server lets us read it, so a
// latency stall lines up with the checkpoint that caused it. Its cause is the
// counter (requested or timed) that rose since the last checkpoint's event:
// the server counts a checkpoint when it starts (interim reports from 15 on)
// or when it ends (a moment after pg_control changes), so the rise can come
// seconds before the end or a tick after it; an end seen before its count is
// held for a few ticks, then reported with its cause unknown.
func (s *pgSampler) checkpointEvents(at time.Time, t *tick, event func(Event)) {
	counts := [2]float64{t.counters["ckpt_timed"], t.counters["ckpt_req"]}
	if s.prevAt.IsZero() { // the first tick: only prime
		s.lastCkpt, s.ckptSeen, s.heldCkpt = t.ckptTime, counts, nil
		return
	}
	if t.ckptTime.IsZero() { // pg_control not readable: a counter's rise is the event
		if cause := s.checkpointCause(counts); cause != "" {
			event(Event{At: at, Kind: "checkpoint", Detail: cause + " checkpoint finished"})
		}
		return
	}
	if t.ckptTime.After(s.lastCkpt) {
		if s.heldCkpt != nil { // a second end before the first one's count
			event(s.heldCkpt.labelled(checkpointUnknown))
		}
		s.heldCkpt = &heldCheckpoint{at: t.ckptTime, finished: at}
	}
	s.lastCkpt = t.ckptTime
	if h := s.heldCkpt; h != nil {
		cause := s.checkpointCause(counts)
		if h.ticks++; cause == "" && h.ticks <= checkpointCountTicks {
			return
		}
		if cause == "" {
			cause = checkpointUnknown
		}
		event(h.labelled(cause))
		s.heldCkpt = nil
	}
}

// checkpointCountTicks: how many ticks an ended checkpoint waits for its count.
const checkpointCountTicks = 3

// checkpointUnknown is the cause of a checkpoint whose count did not rise.
const checkpointUnknown = "unattributed"

// checkpointCause says which counter rose since the last checkpoint's event
// and takes that rise as seen: one requested checkpoint (the next one may
// have started, and been counted, before this tick), or every timed count
// (before 17 it also rises for the checkpoints an idle server skips).
func (s *pgSampler) checkpointCause(counts [2]float64) string {
	for i := range counts {
		s.ckptSeen[i] = min(s.ckptSeen[i], counts[i]) // the statistics were reset
	}
	switch {
	case counts[1] > s.ckptSeen[1]:
		s.ckptSeen[1]++
		return "requested"
	case counts[0] > s.ckptSeen[0]:
		s.ckptSeen[0] = counts[0]
		return "timed"
	}
	return ""
}

// heldCheckpoint is an ended checkpoint waiting for its count.
type heldCheckpoint struct {
	at, finished time.Time
	ticks        int
}

func (h *heldCheckpoint) labelled(cause string) Event {
	return Event{At: h.at, Kind: "checkpoint", Detail: fmt.Sprintf("%s checkpoint, finished by %s", cause, h.finished.Format("15:04:05"))}
}

// restart forgets the previous counters after a reconnect (a restarted server
// resets some of them), so the next tick only primes.
func (s *pgSampler) restart() {
	s.prevAt = time.Time{}
	s.prev = map[string]float64{}
}

// waitProfile returns the sampled wait events, most frequent first.
func (s *pgSampler) waitProfile() []Wait {
	out := make([]Wait, 0, len(s.waits))
	for k, n := range s.waits {
		out = append(out, Wait{Type: k[0], Event: k[1], Samples: n})
	}
	sortWaits(out)
	return out
}

func splitKey(name string) (metric, key string) {
	for i := 0; i < len(name); i++ {
		if name[i] == '|' {
			return name[:i], name[i+1:]
		}
	}
	return name, ""
}

// readReplication reads each standby's lag and WAL sender as the primary
// sees them (issue 31).
func readReplication(s *pgSampler, rows pgx.Rows, t *tick) error {
	for rows.Next() {
		var name, state, sync string
		var write, flush, replay, behind float64
		if err := rows.Scan(&name, &write, &flush, &replay, &behind, &state, &sync); err != nil {
			return err
		}
		t.gauges["replication.write_lag_s|"+name], t.gauges["replication.flush_lag_s|"+name] = write, flush
		t.gauges["replication.replay_lag_s|"+name], t.gauges["replication.replay_lag_mb|"+name] = replay, behind/1e6
		t.gauges["replication.streaming|"+name] = flag(state == "streaming")
		t.gauges["replication.synchronous|"+name] = flag(sync == "sync" || sync == "quorum")
		t.senders[name] = state + ", " + sync
	}
	return rows.Err()
}

func flag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// senderEvents notes each WAL sender that appeared, changed (catchup to
// streaming, async to sync) or went away since the previous tick; the first
// tick notes them all, so a run's report says how it started.
func (s *pgSampler) senderEvents(at time.Time, t *tick, event func(Event)) {
	for name, now := range t.senders {
		if before, ok := s.senders[name]; !ok || before != now {
			event(Event{At: at, Kind: "replication", Detail: fmt.Sprintf("%s: WAL sender %s", name, now)})
		}
	}
	for name := range s.senders {
		if _, ok := t.senders[name]; !ok {
			event(Event{At: at, Kind: "replication", Detail: name + ": no WAL sender (disconnected)"})
		}
	}
	s.senders = t.senders
}
