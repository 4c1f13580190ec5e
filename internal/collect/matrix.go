package collect

import "github.com/pgoltp/pgoltp/internal/settings"

// The version matrix: which statistics query pgoltp runs on which PostgreSQL
// major; every query whose SQL depends on the major is here. A view a major
// does not have (pg_stat_wal before 14, pg_stat_io before 16,
// pg_stat_checkpointer before 17) is not queried there: its panel is absent
// from the report, which is not an error.

// OldestMajor is the oldest PostgreSQL major the collectors know.
const OldestMajor = 10

// MatrixEntry is one statistics query and the majors it runs on.
type MatrixEntry struct {
	Name  string
	Since int // oldest major (0: every one)
	Until int // newest major (0: no limit)
	SQL   string
	Args  []any // example arguments, for running it in a test
}

// RunsOn reports whether the query runs on major.
func (e MatrixEntry) RunsOn(major int) bool { return runsOn(e.Since, e.Until, major) }

// Matrix is every statistics query of pgoltp: the collectors' one-time
// snapshots (before and after a run) and per-tick batch, the named queries
// of other packages (SQL), and settings.ReadServer, which PendingRestart uses.
func Matrix() []MatrixEntry {
	out := []MatrixEntry{
		{Name: "pg_settings", SQL: settingsSQL},
		{Name: "pg_settings (settings.ReadServer)", SQL: settings.ServerSQL, Args: []any{[]string{"shared_buffers", "wal_level"}}},
		{Name: "pg_stat_statements", Since: 13, SQL: statementsSQL(13)},
		{Name: "pg_stat_statements (total_time)", Until: 12, SQL: statementsSQL(12)},
		{Name: "pg_stat_user_tables (sizes)", SQL: tablesSQL, Args: []any{trackedTables}},
		{Name: "pgstattuple_approx", SQL: bloatSQL, Args: []any{uint32(1259)}}, // pg_class
	}
	for _, q := range tickQueries() {
		e := MatrixEntry{Name: q.name, Since: q.since, Until: q.until, SQL: q.sql}
		if q.args != nil {
			e.Args = q.args(&pgSampler{})
		}
		out = append(out, e)
	}
	for _, q := range standbyQueries() { // run on a primary too: no rows, or NULLs
		out = append(out, MatrixEntry{Name: q.name, Since: q.since, Until: q.until, SQL: q.sql})
	}
	return append(out, namedQueries()...)
}

// QueriesFor returns the matrix entries that run on major.
func QueriesFor(major int) []MatrixEntry {
	var out []MatrixEntry
	for _, e := range Matrix() {
		if e.RunsOn(major) {
			out = append(out, e)
		}
	}
	return out
}

// statementsSQL reads pg_stat_statements summed per queryid. Before 13 the
// execution time is total_time and there is no WAL accounting.
func statementsSQL(major int) string {
	execTime, walBytes := "total_exec_time", "sum(wal_bytes)::float8"
	if major < 13 {
		execTime, walBytes = "total_time", "0::float8"
	}
	return `SELECT queryid, min(query), sum(calls)::bigint, sum(` + execTime + `)::float8, sum(rows)::bigint,
		sum(shared_blks_hit)::bigint, sum(shared_blks_read)::bigint, ` + walBytes + `
		FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND queryid IS NOT NULL
		GROUP BY queryid`
}

const settingsSQL = `SELECT name, coalesce(setting, ''), coalesce(unit, ''), source, coalesce(boot_val, ''),
		coalesce(reset_val, ''), pending_restart FROM pg_settings ORDER BY name`

const tablesSQL = `SELECT s.relid, s.schemaname || '.' || s.relname, pg_table_size(s.relid), pg_indexes_size(s.relid),
		s.n_live_tup, s.n_dead_tup, s.n_tup_ins, s.n_tup_upd, s.n_tup_hot_upd, s.n_tup_del, s.autovacuum_count, s.autoanalyze_count,
		age(c.relfrozenxid)
		FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
		ORDER BY pg_total_relation_size(s.relid) DESC, 2 LIMIT $1`

// bloatSQL is the share of a table that is free or dead (pgstattuple).
const bloatSQL = `SELECT approx_free_percent + dead_tuple_percent FROM pgstattuple_approx($1::regclass)`
