package tune

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// setupTimeout bounds the statements an experiment runs before and between
// its measured runs (reading pg_settings, the version): a server that stops
// answering fails the experiment instead of hanging it.
const setupTimeout = 2 * time.Minute

// Restarter is a server pgoltp may restart (*cluster.Cluster). Experiments
// with settings that need a restart run only on one.
type Restarter interface {
	Restart(ctx context.Context) error
}

// restore puts the named settings back as they were before: a value that was
// set with ALTER SYSTEM is set again, any other is reset, so that
// postgresql.conf or the built-in default applies again exactly as before
// (setting the old value instead would pin computed values such as
// wal_buffers=-1). It restarts only when one of them needs it. It succeeds
// only when every value read back from pg_settings afterwards is the one from
// before: "restored" is a fact checked on the server, never assumed.
func restore(ctx context.Context, server Server, dsn string, before map[string]settings.Live, names []string) error {
	if err := putBack(ctx, server, dsn, before, names); err != nil {
		return err
	}
	return checkRestored(ctx, dsn, before, names)
}

// checkRestored reads the named settings back and names every one whose value
// differs from before.
func checkRestored(ctx context.Context, dsn string, before map[string]settings.Live, names []string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("reading the settings back: %w", err)
	}
	defer conn.Close(context.Background())
	now, _, err := settings.ReadServer(ctx, conn, names...)
	if err != nil {
		return fmt.Errorf("reading the settings back: %w", err)
	}
	var differ []string
	for _, n := range names {
		if now[n].Setting != before[n].Setting || now[n].PendingRestart && !before[n].PendingRestart {
			differ = append(differ, fmt.Sprintf("%s=%s (was %s)", n, now[n].Value(), before[n].Value()))
		}
	}
	if len(differ) > 0 {
		return fmt.Errorf("settings read back differ from before the experiment: %s", strings.Join(differ, ", "))
	}
	return nil
}

func putBack(ctx context.Context, server Server, dsn string, before map[string]settings.Live, names []string) error {
	set := map[string]string{}
	var reset []string
	for _, n := range names {
		if l := before[n]; l.FromAutoConf() {
			set[n] = l.Value()
		} else {
			reset = append(reset, n)
		}
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	for _, n := range reset {
		// format(%I) quotes the name on the server: no client-side quoting.
		var stmt string
		if err := conn.QueryRow(ctx, "SELECT format('ALTER SYSTEM RESET %I', $1::text)", n).Scan(&stmt); err != nil {
			return err
		}
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("resetting %s: %w", n, err)
		}
	}
	if _, err := apply(ctx, server, set); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		return err
	}
	// The reload is asynchronous; give the postmaster and our backend a moment.
	time.Sleep(150 * time.Millisecond)
	var pending bool
	if err := conn.QueryRow(ctx, "SELECT count(*) > 0 FROM pg_settings WHERE pending_restart AND name = ANY($1)", names).Scan(&pending); err != nil {
		return err
	}
	if !pending {
		return nil
	}
	r, ok := server.(Restarter)
	if !ok {
		return fmt.Errorf("restoring needs a restart, and pgoltp may not restart this server")
	}
	conn.Close(ctx)
	return r.Restart(ctx)
}

// apply applies values through server after refusing any setting pgoltp
// never sets (settings.Refused): the last gate before ALTER SYSTEM, whatever
// the caller validated before.
func apply(ctx context.Context, server Server, values map[string]string) (bool, error) {
	if err := settings.CheckApplicable(values); err != nil {
		return false, problem.BadInput("leave it out of the plan or --set", "%v", err)
	}
	return server.Apply(ctx, values)
}
