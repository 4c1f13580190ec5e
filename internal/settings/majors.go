package settings

// OldestMajor and NewestMajor bound the PostgreSQL majors whose pg_settings
// the catalog knows: the advisor and experiment plans accept these.
const (
	OldestMajor = 10
	NewestMajor = 18
)
