package settings

// settlesInSeconds are the settings whose new value acts on the very next
// transaction, statement or background-process cycle after pg_reload_conf:
// an experiment may alternate them within one run (a switchback run, issue
// 29 point 1). Everything else needs separate runs: restart settings, and
// reload settings whose effect builds over minutes (checkpoint_timeout,
// max_wal_size and the checkpoint cycle, autovacuum_* and the table state it
// leaves, shared buffers' contents), as well as layouts (fillfactor).
var settlesInSeconds = map[string]bool{
	"commit_delay": true, "commit_siblings": true,
	"wal_writer_delay": true, "wal_writer_flush_after": true,
	"synchronous_commit": true,
	"work_mem":           true,
	"random_page_cost":   true, "seq_page_cost": true,
	"effective_cache_size": true, "effective_io_concurrency": true, "maintenance_io_concurrency": true,
	"jit":            true,
	"bgwriter_delay": true, "bgwriter_lru_maxpages": true, "bgwriter_lru_multiplier": true, "bgwriter_flush_after": true,
	"backend_flush_after": true,
	InjectRows:            true, // read by every transaction
}

// Switchable says whether an experiment may switch name between two values
// within one continuous run by ALTER SYSTEM and pg_reload_conf: its context
// allows a reload and its effect settles within seconds (settlesInSeconds).
// The reason says why not when it may not.
func Switchable(name string, major int) (bool, string) {
	s, ok := Lookup(name, major)
	switch {
	case !ok:
		return false, name + " is not in the catalog"
	case s.NeedsRestart() || s.ReadOnly():
		return false, name + " needs a restart"
	case !settlesInSeconds[name]:
		return false, name + "'s effect builds over minutes (or needs more than a reload to act)"
	}
	return true, ""
}
