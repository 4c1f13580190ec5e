package restore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/pgoltp/pgoltp/internal/pending"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/secret"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// Server is what experiments need of the server: apply settings persistently,
// restarting only when one of them needs it. *cluster.Cluster satisfies it.
type Server interface {
	Apply(ctx context.Context, values map[string]string) (restarted bool, err error)
}

// Restarter is a server pgoltp may restart (*cluster.Cluster). Experiments
// with settings that need a restart run only on one.
type Restarter interface {
	Restart(ctx context.Context) error
}

// Settings puts the named settings back as they were before: a value that was
// set with ALTER SYSTEM is set again, any other is reset, so that
// postgresql.conf or the built-in default applies again exactly as before
// (setting the old value instead would pin computed values such as
// wal_buffers=-1). It restarts only when one of them needs it. It succeeds
// only when every value read back from pg_settings afterwards is the one from
// before: "restored" is a fact checked on the server, never assumed.
//
// A statement that fails does not stop the rest: the configuration is
// reloaded and read back whatever happened, so that no changed file is left
// unread, and a failure is returned only when the values read back differ.
func Settings(ctx context.Context, server Server, dsn string, before map[string]settings.Live, names []string) error {
	putErr := putBack(ctx, server, dsn, before, names)
	checkErr := checkRestored(ctx, dsn, before, names)
	if checkErr != nil && putErr != nil {
		return fmt.Errorf("%w (while restoring: %v)", checkErr, putErr)
	}
	return checkErr
}

// Kept restores names as before had them (bounded, even after ctx
// ended) and removes the guard's record once the restore is verified. It
// says whether the settings are back, and adds to notes why not.
func Kept(ctx context.Context, server Server, dsn string, guard *pending.Guard, before map[string]settings.Live, names []string, notes []string) (bool, []string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	if err := Settings(rctx, server, dsn, before, names); err != nil {
		note := "could not restore the original settings: " + problem.OneLine(err.Error())
		if guard != nil {
			note += "; the lab keeps them: run 'pgoltp restore'"
		}
		return false, append(notes, note)
	}
	if err := guard.Done(); err != nil {
		notes = append(notes, "settings restored, but their record stays in the lab: "+problem.OneLine(err.Error()))
	}
	return true, notes
}

// checkRestored reads the named settings back, on a new session (a restart
// may have ended any older one), and names every one whose value differs
// from before.
func checkRestored(ctx context.Context, dsn string, before map[string]settings.Live, names []string) error {
	conn, err := adminconn.Connect(ctx, dsn)
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
		was, is := before[n], now[n]
		switch {
		case was.Setting == secret.Redacted:
			// A secret from a restore record: its value was never stored,
			// only where it came from can be compared.
			if was.SourceFile != "" && is.FromAutoConf() != was.FromAutoConf() {
				differ = append(differ, fmt.Sprintf("%s (from %s, was from %s)", n, is.SourceFile, was.SourceFile))
			}
		case is.Setting != was.Setting || is.PendingRestart && !was.PendingRestart:
			differ = append(differ, fmt.Sprintf("%s=%s (was %s)", n, is.Value(), was.Value()))
		case was.SourceFile != "" && is.FromAutoConf() != was.FromAutoConf():
			// Same value, other origin: an ALTER SYSTEM entry left behind
			// (or lost) that a later change of postgresql.conf would reveal.
			differ = append(differ, fmt.Sprintf("%s=%s (from %s, was from %s)", n, is.Value(), is.SourceFile, was.SourceFile))
		}
	}
	if len(differ) > 0 {
		return fmt.Errorf("settings read back differ from before the experiment: %s", strings.Join(differ, ", "))
	}
	return nil
}

// putBack resets what was not set with ALTER SYSTEM, sets again (through
// server) what was, reloads and restarts when one of them needs it. It goes
// on after a failed statement and returns every failure. Each step opens
// its own session: applying may restart the server under an older one.
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
	var errs []error
	if err := resetSettings(ctx, dsn, reset); err != nil {
		errs = append(errs, err)
	}
	if len(set) > 0 {
		if _, err := Apply(ctx, server, set); err != nil {
			errs = append(errs, err)
		}
	}
	pending, err := reload(ctx, dsn, names)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	if pending {
		if r, ok := server.(Restarter); !ok {
			errs = append(errs, fmt.Errorf("restoring needs a restart, and pgoltp may not restart this server"))
		} else if err := r.Restart(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// resetSettings runs ALTER SYSTEM RESET for each name, going on after a
// failure.
func resetSettings(ctx context.Context, dsn string, names []string) error {
	if len(names) == 0 {
		return nil
	}
	conn, err := adminconn.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	var errs []error
	for _, n := range names {
		// format(%I) quotes the name on the server: no client-side quoting.
		var stmt string
		err := settings.DeclareOwn(ctx, conn, n)
		if err == nil {
			err = conn.QueryRow(ctx, "SELECT format('ALTER SYSTEM RESET %I', $1::text)", n).Scan(&stmt)
		}
		if err == nil {
			_, err = conn.Exec(ctx, stmt)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("resetting %s: %w", n, err))
		}
	}
	return errors.Join(errs...)
}

// reload makes the server read its configuration again and says whether one
// of names waits for a restart.
func reload(ctx context.Context, dsn string, names []string) (pending bool, err error) {
	conn, err := adminconn.Connect(ctx, dsn)
	if err != nil {
		return false, fmt.Errorf("reloading the configuration: %w", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		return false, fmt.Errorf("reloading the configuration: %w", err)
	}
	// The reload is asynchronous; give the postmaster and our backend a moment.
	time.Sleep(150 * time.Millisecond)
	if len(names) == 0 {
		return false, nil
	}
	waiting, err := settings.PendingRestart(ctx, conn, names...)
	return len(waiting) > 0, err
}

// Apply applies values through server after refusing any setting pgoltp
// never sets (settings.Refused): the last gate before ALTER SYSTEM, whatever
// the caller validated before.
func Apply(ctx context.Context, server Server, values map[string]string) (bool, error) {
	if err := settings.CheckApplicable(values); err != nil {
		return false, problem.BadInput("leave it out of the plan or --set", "%v", err)
	}
	return server.Apply(ctx, values)
}
