package collect

// The statistics queries other packages ask by name (the doctor, the version
// study): every variant with the majors it runs on, in the one matrix, so
// that what a view or column is called on which major is known here only.

// Query names a question to the server's statistics whose SQL depends on the
// major. SQL returns the variant for a major.
type Query string

const (
	// CheckpointCounts: timed checkpoints, requested checkpoints, stats_reset (int8, int8, timestamptz).
	CheckpointCounts Query = "checkpoint counts"
	// BufferWrites: buffers written by client backends, by the checkpointer,
	// by the background writer, and the times it stopped at bgwriter_lru_maxpages (four int8).
	BufferWrites Query = "buffer writes"
	// WALSinceReset: WAL bytes and seconds since pg_stat_wal's reset (two float8; 14+).
	WALSinceReset Query = "WAL since reset"
	// WALImages: WAL records, full-page images, WAL bytes (three int8; 14+).
	WALImages Query = "WAL full-page images"
	// WALBuffersFull: writes forced by a full wal_buffers, WAL records (two int8; 14+).
	WALBuffersFull Query = "WAL buffers full"
	// DatabaseSnapshot: WAL position, database size, index size, checkpoints,
	// autovacuums, dead tuples, updates, HOT updates of the user tables (eight float8).
	DatabaseSnapshot Query = "database snapshot"
)

// Queries lists every named query, for the matrix test.
var Queries = []Query{CheckpointCounts, BufferWrites, WALSinceReset, WALImages, WALBuffersFull, DatabaseSnapshot}

// SQL returns the statement of q for major, and false when that major has
// no variant of q (its view is newer): the caller then has nothing to ask.
func SQL(q Query, major int) (string, bool) {
	for _, e := range namedQueries() {
		if e.Name == string(q) && e.RunsOn(major) {
			return e.SQL, true
		}
	}
	return "", false
}

// namedQueries is every variant of every Query: checkpoints moved from
// pg_stat_bgwriter to pg_stat_checkpointer in 17 (and backend writes to
// pg_stat_io), pg_stat_wal came in 14.
func namedQueries() []MatrixEntry {
	return []MatrixEntry{
		{Name: string(CheckpointCounts), Since: 17, SQL: "SELECT num_timed, num_requested, stats_reset FROM pg_stat_checkpointer"},
		{Name: string(CheckpointCounts), Until: 16, SQL: "SELECT checkpoints_timed, checkpoints_req, stats_reset FROM pg_stat_bgwriter"},
		{Name: string(BufferWrites), Since: 17, SQL: `SELECT
		    coalesce((SELECT sum(writes) FROM pg_stat_io WHERE backend_type = 'client backend' AND object = 'relation'), 0)::bigint,
		    coalesce((SELECT sum(writes) FROM pg_stat_io WHERE backend_type = 'checkpointer' AND object = 'relation'), 0)::bigint,
		    buffers_clean, maxwritten_clean FROM pg_stat_bgwriter`},
		{Name: string(BufferWrites), Until: 16, SQL: "SELECT buffers_backend, buffers_checkpoint, buffers_clean, maxwritten_clean FROM pg_stat_bgwriter"},
		{Name: string(WALSinceReset), Since: 14, SQL: "SELECT wal_bytes::float8, extract(epoch FROM now() - stats_reset)::float8 FROM pg_stat_wal"},
		{Name: string(WALImages), Since: 14, SQL: "SELECT wal_records, wal_fpi, wal_bytes::bigint FROM pg_stat_wal"},
		{Name: string(WALBuffersFull), Since: 14, SQL: "SELECT wal_buffers_full, wal_records FROM pg_stat_wal"},
		{Name: string(DatabaseSnapshot), Since: 17, SQL: databaseSnapshotSQL(17)},
		{Name: string(DatabaseSnapshot), Until: 16, SQL: databaseSnapshotSQL(16)},
	}
}

// databaseSnapshotSQL reads a DatabaseSnapshot on major; checkpoints are
// counted where the major keeps them.
func databaseSnapshotSQL(major int) string {
	checkpoints := `(SELECT (checkpoints_timed + checkpoints_req)::float8 FROM pg_stat_bgwriter)`
	if major >= 17 {
		checkpoints = `(SELECT (num_timed + num_requested)::float8 FROM pg_stat_checkpointer)`
	}
	return `SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::float8, pg_database_size(current_database())::float8,
		coalesce(sum(pg_indexes_size(relid)), 0)::float8, ` + checkpoints + `,
		coalesce(sum(autovacuum_count), 0)::float8, coalesce(sum(n_dead_tup), 0)::float8,
		coalesce(sum(n_tup_upd), 0)::float8, coalesce(sum(n_tup_hot_upd), 0)::float8
		FROM pg_stat_user_tables`
}
