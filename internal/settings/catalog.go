package settings

// The catalog: every server setting pgoltp advises on, audits or lets an
// experiment change. Ranges, units and contexts are PostgreSQL's own (as
// pg_settings reports them); TestCatalogMatchesServer checks them against a
// live server. A setting whose form changed between major versions has one
// entry per span of versions.

const maxInt32 = 2147483647

const (
	lostCommits = "a crash loses the commits of roughly the last 3×wal_writer_delay, already reported as committed; the database stays consistent"
	corruption  = "an OS crash or power loss can leave the database corrupt, not just behind; only for data you can rebuild"
)

var catalog = []Setting{
	// Memory.
	num("shared_buffers", Integer, "8kB", 16, 1073741823, Postmaster, "PostgreSQL's own page cache; sized once at start"),
	num("effective_cache_size", Integer, "8kB", 1, maxInt32, User, "planner's estimate of OS + PostgreSQL cache; allocates nothing"),
	num("work_mem", Integer, "kB", 64, maxInt32, User, "memory per sort/hash node per backend before spilling to disk"),
	num("maintenance_work_mem", Integer, "kB", 1024, maxInt32, User, "memory for VACUUM, CREATE INDEX, ALTER TABLE ADD FOREIGN KEY").until(16),
	num("maintenance_work_mem", Integer, "kB", 64, maxInt32, User, "memory for VACUUM, CREATE INDEX, ALTER TABLE ADD FOREIGN KEY").since(17),
	num("autovacuum_work_mem", Integer, "kB", -1, maxInt32, Sighup, "memory per autovacuum worker (-1: maintenance_work_mem)"),
	num("temp_buffers", Integer, "8kB", 100, 1073741823, User, "per-session buffers for temporary tables"),
	enum("huge_pages", []string{"off", "on", "try"}, Postmaster, "back shared memory with huge pages: fewer TLB misses, smaller page tables").
		risky(func(v string) (Risk, string) {
			if lower(v) == "on" {
				return Restart, "the server refuses to start unless enough huge pages are reserved (vm.nr_hugepages)"
			}
			return "", ""
		}),
	num("huge_page_size", Integer, "kB", 0, maxInt32, Postmaster, "size of huge pages to request (0: the kernel default)").since(14),
	num("max_connections", Integer, "", 1, 262143, Postmaster, "connection slots; each costs shared memory and lock-table space"),

	// WAL and checkpoints.
	num("wal_buffers", Integer, "8kB", -1, 262143, Postmaster, "shared buffers for WAL not yet written (-1: 1/32 of shared_buffers, at most 16MB)"),
	num("max_wal_size", Integer, "MB", 2, maxInt32, Sighup, "WAL between checkpoints that triggers a requested checkpoint; larger means fewer full-page images and longer crash recovery"),
	num("min_wal_size", Integer, "MB", 2, maxInt32, Sighup, "WAL kept for recycling instead of being removed"),
	num("checkpoint_timeout", Integer, "s", 30, 86400, Sighup, "time between timed checkpoints; longer means fewer full-page images and longer crash recovery"),
	num("checkpoint_completion_target", Real, "", 0, 1, Sighup, "fraction of the interval over which checkpoint writes are spread"),
	num("checkpoint_flush_after", Integer, "8kB", 0, 256, Sighup, "ask the OS to write back after this many checkpoint pages"),
	num("checkpoint_warning", Integer, "s", 0, maxInt32, Sighup, "log when WAL-triggered checkpoints come closer than this"),
	boolean("wal_compression", Superuser, "compress full-page images in WAL").until(14),
	enum("wal_compression", []string{"pglz", "lz4", "zstd", "on", "off"}, Superuser, "compress full-page images in WAL (lz4/zstd need a server built with them)").since(15),
	num("wal_writer_delay", Integer, "ms", 1, 10000, Sighup, "how often the WAL writer flushes; bounds the loss window of synchronous_commit=off"),
	num("wal_writer_flush_after", Integer, "8kB", 0, maxInt32, Sighup, "WAL the writer accumulates before flushing"),
	enum("wal_level", []string{"minimal", "replica", "logical"}, Postmaster, "how much WAL to write; minimal rules out archiving and replicas").
		risky(func(v string) (Risk, string) {
			if lower(v) == "minimal" {
				return Restart, "no WAL archiving, no replicas, no point-in-time recovery; crash recovery is unaffected"
			}
			return "", ""
		}),
	enum("wal_sync_method", []string{"fsync", "fdatasync", "open_sync", "open_datasync", "fsync_writethrough"}, Sighup, "how WAL is forced to disk; every method is durable when the storage honours it"),
	boolean("wal_recycle", Superuser, "reuse old WAL files instead of creating new ones (off helps copy-on-write filesystems)").since(12),
	boolean("wal_init_zero", Superuser, "zero-fill new WAL files (off helps copy-on-write filesystems)").since(12),
	boolean("wal_log_hints", Postmaster, "WAL-log hint-bit changes (needed by pg_rewind without checksums); more full-page images"),
	boolean("full_page_writes", Sighup, "write a page's full image to WAL after each checkpoint so torn pages can be repaired").
		risky(whenOff(CanCorruptOnCrash, "a torn 8kB page write during a crash cannot be repaired: "+corruption)),
	boolean("fsync", Sighup, "force writes to disk at commit and checkpoint").
		risky(whenOff(CanCorruptOnCrash, corruption)),
	enum("synchronous_commit", []string{"local", "remote_write", "remote_apply", "on", "off"}, User, "whether COMMIT waits for its WAL to be flushed").
		risky(func(v string) (Risk, string) {
			if b, err := ParseBool(v); err == nil && !b {
				return CanLoseDataOnCrash, lostCommits
			}
			return "", ""
		}),
	num("commit_delay", Integer, "", 0, 100000, Superuser, "microseconds to wait for other commits to share one WAL flush (group commit); durable"),
	num("commit_siblings", Integer, "", 0, 1000, User, "active transactions needed before commit_delay applies"),
	num("wal_keep_segments", Integer, "", 0, maxInt32, Sighup, "WAL segments kept for standbys (wal_keep_size from 13)").until(12),
	num("wal_keep_size", Integer, "MB", 0, maxInt32, Sighup, "WAL kept for standbys").since(13),
	num("max_wal_senders", Integer, "", 0, 262143, Postmaster, "replication connections; 0 allows wal_level=minimal"),
	enum("archive_mode", []string{"always", "on", "off"}, Postmaster, "archive completed WAL segments"),
	boolean("data_sync_retry", Postmaster, "retry a failed fsync instead of crashing").
		risky(whenOn(CanCorruptOnCrash, "after a failed fsync the kernel may have dropped the dirty pages; retrying can silently lose written data")),
	boolean("zero_damaged_pages", Superuser, "replace pages with damaged headers by zeroes").
		risky(whenOn(CanCorruptOnCrash, "silently destroys every row on a damaged page instead of reporting it")),
	boolean("ignore_checksum_failure", Superuser, "read pages whose checksum fails").
		risky(whenOn(CanCorruptOnCrash, "reads corrupt pages as if valid and can spread the corruption")),

	// Background writer and write-back.
	num("bgwriter_delay", Integer, "ms", 10, 10000, Sighup, "sleep between background-writer rounds"),
	num("bgwriter_lru_maxpages", Integer, "", 0, 1073741823, Sighup, "most buffers the background writer cleans per round (0 disables it)"),
	num("bgwriter_lru_multiplier", Real, "", 0, 10, Sighup, "how far ahead of recent demand the background writer cleans"),
	num("bgwriter_flush_after", Integer, "8kB", 0, 256, Sighup, "ask the OS to write back after this many background-writer pages"),
	num("backend_flush_after", Integer, "8kB", 0, 256, User, "ask the OS to write back after this many pages written by a backend"),

	// Autovacuum.
	boolean("autovacuum", Sighup, "run autovacuum; off lets tables bloat and risks transaction-ID wraparound shutdown"),
	num("autovacuum_max_workers", Integer, "", 1, 262143, Postmaster, "concurrent autovacuum workers").until(17),
	num("autovacuum_max_workers", Integer, "", 1, 262143, Sighup, "concurrent autovacuum workers (at most autovacuum_worker_slots)").since(18),
	num("autovacuum_worker_slots", Integer, "", 1, 262143, Postmaster, "autovacuum worker slots reserved at start").since(18),
	num("autovacuum_naptime", Integer, "s", 1, 2147483, Sighup, "pause between autovacuum rounds per database"),
	num("autovacuum_vacuum_scale_factor", Real, "", 0, 100, Sighup, "fraction of a table's rows dead before it is vacuumed"),
	num("autovacuum_vacuum_insert_scale_factor", Real, "", 0, 100, Sighup, "fraction of a table's rows inserted before it is vacuumed").since(13),
	num("autovacuum_analyze_scale_factor", Real, "", 0, 100, Sighup, "fraction of a table's rows changed before it is analyzed"),
	num("autovacuum_vacuum_cost_limit", Integer, "", -1, 10000, Sighup, "autovacuum I/O budget per round (-1: vacuum_cost_limit)"),
	num("autovacuum_vacuum_cost_delay", Integer, "ms", -1, 100, Sighup, "autovacuum sleep when its budget is spent (-1: vacuum_cost_delay)").until(11),
	num("autovacuum_vacuum_cost_delay", Real, "ms", -1, 100, Sighup, "autovacuum sleep when its budget is spent (-1: vacuum_cost_delay)").since(12),
	num("vacuum_cost_limit", Integer, "", 1, 10000, User, "manual VACUUM I/O budget per round"),
	num("vacuum_cost_delay", Integer, "ms", 0, 100, User, "manual VACUUM sleep when its budget is spent").until(11),
	num("vacuum_cost_delay", Real, "ms", 0, 100, User, "manual VACUUM sleep when its budget is spent").since(12),

	// I/O.
	num("effective_io_concurrency", Integer, "", 0, 1000, User, "concurrent reads the planner and executor may issue (prefetch)"),
	num("maintenance_io_concurrency", Integer, "", 0, 1000, User, "effective_io_concurrency for maintenance work").since(13),
	num("io_combine_limit", Integer, "8kB", 1, 32, User, "largest I/O the read stream combines").since(17).until(17),
	num("io_combine_limit", Integer, "8kB", 1, 128, User, "largest I/O the read stream combines (at most io_max_combine_limit)").since(18),
	num("io_max_combine_limit", Integer, "8kB", 1, 128, Postmaster, "upper bound of io_combine_limit, fixed at start").since(18),
	enum("io_method", []string{"sync", "worker", "io_uring"}, Postmaster, "how asynchronous I/O is performed (io_uring needs a server built with liburing)").since(18),
	num("io_workers", Integer, "", 1, 32, Sighup, "I/O worker processes for io_method=worker").since(18),
	num("random_page_cost", Real, "", 0, 1.79769e+308, User, "planner cost of a random page read"),
	num("seq_page_cost", Real, "", 0, 1.79769e+308, User, "planner cost of a sequential page read"),

	// Parallelism and JIT.
	num("max_worker_processes", Integer, "", 0, 262143, Postmaster, "background worker slots, shared by parallel query"),
	num("max_parallel_workers", Integer, "", 0, 1024, User, "parallel workers at once"),
	num("max_parallel_workers_per_gather", Integer, "", 0, 1024, User, "parallel workers per query node"),
	num("max_parallel_maintenance_workers", Integer, "", 0, 1024, User, "parallel workers per CREATE INDEX or VACUUM").since(11),
	boolean("jit", User, "JIT-compile expressions; costs milliseconds that short OLTP queries never earn back").since(11),

	// Statistics, locks, logging.
	boolean("track_io_timing", Superuser, "time block reads and writes (cheap on modern clocks)"),
	boolean("track_wal_io_timing", Superuser, "time WAL writes and syncs").since(14),
	num("default_statistics_target", Integer, "", 1, 10000, User, "sample size of ANALYZE"),
	num("max_locks_per_transaction", Integer, "", 10, maxInt32, Postmaster, "lock-table slots per transaction"),
	num("max_prepared_transactions", Integer, "", 0, 262143, Postmaster, "two-phase-commit transactions"),
	str("shared_preload_libraries", Postmaster, "extensions loaded at start (pg_stat_statements)"),
	boolean("log_checkpoints", Sighup, "log each checkpoint with its reason and timing"),
	num("log_autovacuum_min_duration", Integer, "ms", -1, maxInt32, Sighup, "log autovacuum actions taking at least this long"),
	num("statement_timeout", Integer, "ms", 0, maxInt32, User, "cancel statements running longer than this"),
	num("idle_in_transaction_session_timeout", Integer, "ms", 0, maxInt32, User, "end sessions idle inside a transaction for this long"),

	// Read-only facts the doctor uses.
	num("shared_memory_size", Integer, "MB", 0, maxInt32, Internal, "size of the server's main shared memory area").since(15),
	num("shared_memory_size_in_huge_pages", Integer, "", -1, maxInt32, Internal, "huge pages needed for the main shared memory area").since(15),
	num("block_size", Integer, "", 8192, 8192, Internal, "page size (compile time)"),
	num("wal_segment_size", Integer, "B", 1048576, 1073741824, Internal, "WAL file size (initdb time)").since(11),
	boolean("data_checksums", Internal, "page checksums (initdb time)"),
}

func num(name string, kind Kind, unit string, min, max float64, ctx Context, about string) Setting {
	return Setting{Name: name, Range: Range{Kind: kind, Unit: unit, Min: min, Max: max}, Context: ctx, About: about}
}

func boolean(name string, ctx Context, about string) Setting {
	return Setting{Name: name, Range: Range{Kind: Bool}, Context: ctx, About: about}
}

func enum(name string, values []string, ctx Context, about string) Setting {
	return Setting{Name: name, Range: Range{Kind: Enum, Enum: values}, Context: ctx, About: about}
}

func str(name string, ctx Context, about string) Setting {
	return Setting{Name: name, Range: Range{Kind: String}, Context: ctx, About: about}
}

func (s Setting) since(major int) Setting { s.MinMajor = major; return s }
func (s Setting) until(major int) Setting { s.MaxMajor = major; return s }

func (s Setting) risky(f func(string) (Risk, string)) Setting { s.Risky = f; return s }

func whenOff(r Risk, why string) func(string) (Risk, string) {
	return func(v string) (Risk, string) {
		if b, err := ParseBool(v); err == nil && !b {
			return r, why
		}
		return "", ""
	}
}

func whenOn(r Risk, why string) func(string) (Risk, string) {
	return func(v string) (Risk, string) {
		if b, err := ParseBool(v); err == nil && b {
			return r, why
		}
		return "", ""
	}
}
