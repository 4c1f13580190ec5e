package store

// schemaVersion is bumped when the DDL changes in a way an older pgoltp
// cannot read; Open refuses newer files. A new table is no such change: Open
// creates it in an existing store (CREATE TABLE IF NOT EXISTS), and runs
// stored before it simply have no rows there (pgoltp_hour_histograms).
const schemaVersion = 1

// schema is the same DDL for SQLite and PostgreSQL: only types both accept,
// times as Unix microseconds, booleans as 0/1. Tables carry a pgoltp_ prefix so
// a --results-dsn database can hold other things too.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS pgoltp_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS pgoltp_runs (
		id TEXT PRIMARY KEY, workload TEXT NOT NULL, title TEXT NOT NULL,
		status TEXT NOT NULL, owner TEXT NOT NULL,
		started_us BIGINT NOT NULL, ended_us BIGINT NOT NULL,
		sample_start_us BIGINT NOT NULL DEFAULT 0, sample_end_us BIGINT NOT NULL DEFAULT 0,
		sample_interval_us BIGINT NOT NULL DEFAULT 0,
		measure_start_us BIGINT NOT NULL DEFAULT 0, measure_end_us BIGINT NOT NULL DEFAULT 0)`,
	`CREATE TABLE IF NOT EXISTS pgoltp_params (run_id TEXT NOT NULL, pos INTEGER NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run_id, pos))`,
	`CREATE TABLE IF NOT EXISTS pgoltp_figures (run_id TEXT NOT NULL, pos INTEGER NOT NULL, name TEXT NOT NULL, value DOUBLE PRECISION NOT NULL, unit TEXT NOT NULL, PRIMARY KEY (run_id, pos))`,
	`CREATE TABLE IF NOT EXISTS pgoltp_notes (run_id TEXT NOT NULL, pos INTEGER NOT NULL, note TEXT NOT NULL, PRIMARY KEY (run_id, pos))`,
	`CREATE TABLE IF NOT EXISTS pgoltp_histograms (run_id TEXT NOT NULL, txn_type TEXT NOT NULL, encoded TEXT NOT NULL, PRIMARY KEY (run_id, txn_type))`,
	// One latency histogram per transaction type per hour of the run, stored
	// as each hour closes; hour h holds the intervals that start in seconds
	// [3600h, 3600(h+1)) of the run (pgoltp_series.second).
	`CREATE TABLE IF NOT EXISTS pgoltp_hour_histograms (run_id TEXT NOT NULL, hour INTEGER NOT NULL, txn_type TEXT NOT NULL, encoded TEXT NOT NULL, PRIMARY KEY (run_id, hour, txn_type))`,
	`CREATE TABLE IF NOT EXISTS pgoltp_series (run_id TEXT NOT NULL, second INTEGER NOT NULL, txn_type TEXT NOT NULL, length_s DOUBLE PRECISION NOT NULL,
		count BIGINT NOT NULL, errors BIGINT NOT NULL,
		p50_us DOUBLE PRECISION NOT NULL, p95_us DOUBLE PRECISION NOT NULL, p99_us DOUBLE PRECISION NOT NULL, max_us DOUBLE PRECISION NOT NULL)`,
	// Not unique: a driver with sub-second intervals may give two per second,
	// and a run must never fail to be stored over that.
	`CREATE INDEX IF NOT EXISTS pgoltp_series_run ON pgoltp_series (run_id, second)`,
	`CREATE TABLE IF NOT EXISTS pgoltp_samples (run_id TEXT NOT NULL, at_us BIGINT NOT NULL, metric TEXT NOT NULL, key TEXT NOT NULL, value DOUBLE PRECISION NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS pgoltp_samples_run ON pgoltp_samples (run_id, metric, at_us)`,
	`CREATE TABLE IF NOT EXISTS pgoltp_events (run_id TEXT NOT NULL, at_us BIGINT NOT NULL, kind TEXT NOT NULL, detail TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS pgoltp_waits (run_id TEXT NOT NULL, wait_type TEXT NOT NULL, wait_event TEXT NOT NULL, samples BIGINT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS pgoltp_statements (run_id TEXT NOT NULL, pos INTEGER NOT NULL, queryid BIGINT NOT NULL, query TEXT NOT NULL,
		calls BIGINT NOT NULL, total_ms DOUBLE PRECISION NOT NULL, rows_returned BIGINT NOT NULL,
		shared_hit BIGINT NOT NULL, shared_read BIGINT NOT NULL, wal_bytes DOUBLE PRECISION NOT NULL, PRIMARY KEY (run_id, pos))`,
	`CREATE TABLE IF NOT EXISTS pgoltp_tables (run_id TEXT NOT NULL, name TEXT NOT NULL,
		table_before BIGINT NOT NULL, table_after BIGINT NOT NULL, index_before BIGINT NOT NULL, index_after BIGINT NOT NULL,
		live_after BIGINT NOT NULL, dead_after BIGINT NOT NULL, inserts BIGINT NOT NULL, updates BIGINT NOT NULL,
		hot_updates BIGINT NOT NULL, deletes BIGINT NOT NULL, autovacuums BIGINT NOT NULL, autoanalyzes BIGINT NOT NULL,
		freeze_age BIGINT NOT NULL, bloat_before DOUBLE PRECISION NOT NULL, bloat_after DOUBLE PRECISION NOT NULL,
		PRIMARY KEY (run_id, name))`,
	`CREATE TABLE IF NOT EXISTS pgoltp_settings (run_id TEXT NOT NULL, name TEXT NOT NULL, setting TEXT NOT NULL, unit TEXT NOT NULL,
		source TEXT NOT NULL, boot_val TEXT NOT NULL, reset_val TEXT NOT NULL, pending_restart INTEGER NOT NULL,
		risk TEXT NOT NULL, risk_reason TEXT NOT NULL, PRIMARY KEY (run_id, name))`,
	// Input audits in numbers that add up over the parts of a group.
	`CREATE TABLE IF NOT EXISTS pgoltp_tallies (run_id TEXT NOT NULL, pos INTEGER NOT NULL, name TEXT NOT NULL, count BIGINT NOT NULL, of_count BIGINT NOT NULL,
		scale DOUBLE PRECISION NOT NULL, expected DOUBLE PRECISION NOT NULL, sd DOUBLE PRECISION NOT NULL, low DOUBLE PRECISION NOT NULL,
		high DOUBLE PRECISION NOT NULL, allow BIGINT NOT NULL, PRIMARY KEY (run_id, pos))`,
	`CREATE TABLE IF NOT EXISTS pgoltp_facts (run_id TEXT NOT NULL, scope TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run_id, scope, name))`,
	// A search (pgoltp tune) and the runs it made; added without a version
	// bump: older readers never look at these tables.
	`CREATE TABLE IF NOT EXISTS pgoltp_searches (id TEXT PRIMARY KEY, kind TEXT NOT NULL, title TEXT NOT NULL,
		started_us BIGINT NOT NULL, updated_us BIGINT NOT NULL, document TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS pgoltp_search_runs (search_id TEXT NOT NULL, run_id TEXT NOT NULL, role TEXT NOT NULL,
		trial INTEGER NOT NULL, label TEXT NOT NULL, PRIMARY KEY (search_id, run_id))`,
}

// runTables are the per-run tables Finish rewrites. pgoltp_hour_histograms
// is not one: its hours are appended while the run goes, and Finish writes
// only the hours it is given (AppendHours).
var runTables = []string{
	"pgoltp_params", "pgoltp_figures", "pgoltp_notes", "pgoltp_histograms", "pgoltp_series",
	"pgoltp_samples", "pgoltp_events", "pgoltp_waits", "pgoltp_statements", "pgoltp_tables",
	"pgoltp_settings", "pgoltp_facts", "pgoltp_tallies",
}
