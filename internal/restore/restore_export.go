package restore

import (
	"context"

	"github.com/pgoltp/pgoltp/internal/settings"
)

// Restore puts the named settings back as they were in before (set again if
// they came from ALTER SYSTEM, reset otherwise), restarting only if needed,
// and verifies them by reading pg_settings back. `pgoltp tune` uses it.
func Restore(ctx context.Context, server Server, dsn string, before map[string]settings.Live, names []string) error {
	return restore(ctx, server, dsn, before, names)
}
