package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/settings"
)

var settingNameRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$`)

// Apply sets server settings persistently with ALTER SYSTEM (postgresql.auto.conf),
// reloads the configuration, and restarts the server only when one of them
// needs it (pg_settings.pending_restart). PostgreSQL itself validates every
// name and value; a rejected one is returned as a bad-input problem and nothing
// after it is applied.
//
// Settings cannot take the lab hostage: if the server does not come back
// after the restart, postgresql.auto.conf is put back as it was, the server is
// started again, and the error names the setting and quotes the server log.
func (c *Cluster) Apply(ctx context.Context, settings map[string]string) (restarted bool, err error) {
	if len(settings) == 0 {
		return false, nil
	}
	// The way back is taken before anything is applied.
	saved, err := c.readAutoConf()
	if err != nil {
		return false, err
	}
	conn, err := c.connect(ctx)
	if err != nil {
		return false, err
	}
	restart, err := ApplySettings(ctx, conn, settings)
	conn.Close(context.Background())
	if err != nil {
		if rerr := c.writeAutoConf(saved); rerr != nil {
			return false, fmt.Errorf("%w (and restoring postgresql.auto.conf failed: %v)", err, rerr)
		}
		return false, err
	}
	if !restart {
		return false, nil
	}
	if err := c.Stop(ctx); err != nil {
		return false, err
	}
	// Only what the server logs from here on explains a failed start.
	logStart := fileSize(c.LogFile)
	if err := c.Start(ctx); err != nil {
		return true, c.recoverFromSettings(ctx, saved, settings, logStart, err)
	}
	return true, nil
}

// recoverFromSettings brings the server back after it failed to start with
// new settings, and explains which setting stopped it.
func (c *Cluster) recoverFromSettings(ctx context.Context, saved []byte, settings map[string]string, logStart int64, startErr error) error {
	failure := firstFatal(readFrom(c.LogFile, logStart))
	if c.Running(ctx) {
		if err := c.Stop(ctx); err != nil {
			_ = c.Kill()
		}
	}
	if err := c.writeAutoConf(saved); err != nil {
		return fmt.Errorf("the server did not start with the new settings (%s), and restoring postgresql.auto.conf failed: %v", failure, err)
	}
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("the server did not start with the new settings (%s), nor after they were removed: %w", failure, err)
	}
	if failure == "" {
		failure = lastLines(startErr.Error(), 1)
	}
	return problem.BadInput(fmt.Sprintf("choose a value this machine can run with (server log: %s)", c.LogFile),
		"PostgreSQL did not start with %s; the previous settings are restored and the server is running again. Server log: %s",
		culprit(settings, failure), failure)
}

// culprit names the settings a startup failure points at: those the log
// message mentions, else all of them.
func culprit(settings map[string]string, failure string) string {
	names := make([]string, 0, len(settings))
	for name := range settings {
		names = append(names, name)
	}
	sort.Strings(names)
	var named []string
	for _, n := range names {
		if strings.Contains(failure, n) {
			named = append(named, n)
		}
	}
	if len(named) == 0 {
		named = names
	}
	parts := make([]string, len(named))
	for i, n := range named {
		parts[i] = fmt.Sprintf("%s = %q", n, settings[n])
	}
	return strings.Join(parts, ", ")
}

// firstFatal returns the first FATAL or PANIC line of a server log excerpt,
// with its HINT if one follows, without the line prefix (time and pid).
func firstFatal(log string) string {
	lines := strings.Split(log, "\n")
	for i, line := range lines {
		j := strings.Index(line, "FATAL:")
		if j < 0 {
			j = strings.Index(line, "PANIC:")
		}
		if j < 0 {
			continue
		}
		msg := strings.Join(strings.Fields(line[j:]), " ")
		for _, next := range lines[i+1:] {
			if k := strings.Index(next, "HINT:"); k >= 0 {
				msg += " " + strings.Join(strings.Fields(next[k:]), " ")
				break
			}
			if strings.Contains(next, "LOG:") || strings.Contains(next, "FATAL:") {
				break
			}
		}
		return msg
	}
	return ""
}

func (c *Cluster) autoConfPath() string { return filepath.Join(c.DataDir, "postgresql.auto.conf") }

// readAutoConf returns postgresql.auto.conf as it is now (nil if it does not exist).
func (c *Cluster) readAutoConf() ([]byte, error) {
	f, err := openNoFollow(c.autoConfPath(), os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("saving postgresql.auto.conf before applying settings: %w", err)
	}
	defer f.Close()
	return io.ReadAll(f)
}

// writeAutoConf puts back what readAutoConf returned.
func (c *Cluster) writeAutoConf(saved []byte) error {
	if saved == nil {
		err := os.Remove(c.autoConfPath())
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	return c.user.writeInData(c.autoConfPath(), string(saved), os.O_WRONLY|os.O_TRUNC)
}

// connect opens a superuser connection with a bounded wait.
func (c *Cluster) connect(ctx context.Context) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	return adminconn.Connect(ctx, c.DSN("postgres"))
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func readFrom(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.NewSectionReader(f, offset, 1<<20))
	return string(b)
}

// ApplySettings runs ALTER SYSTEM for each setting on conn (a superuser
// connection to any server, managed or not), reloads, and reports whether a
// restart is needed for them to take effect.
//
// It is the only code in pgoltp that runs ALTER SYSTEM SET, so it is where a
// setting pgoltp never sets (settings.Refused) is stopped for every caller,
// present and future, whatever the caller checked before: all names are
// checked before the first statement, so a refused setting leaves nothing
// half-applied. Restoring never needs a refused name here: pgoltp only puts
// back settings it changed itself (and ALTER SYSTEM RESET does not pass here).
func ApplySettings(ctx context.Context, conn *pgx.Conn, values map[string]string) (needRestart bool, err error) {
	// Setup statements are quick; a server that hangs must not hang pgoltp.
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	names := make([]string, 0, len(values))
	for name := range values {
		if !settingNameRE.MatchString(name) {
			return false, problem.BadInput("use a PostgreSQL parameter name such as shared_buffers", "%q is not a setting name", name)
		}
		names = append(names, name)
	}
	if err := settings.CheckApplicable(values); err != nil {
		return false, problem.BadInput("leave it out of the plan or --set", "%v", err)
	}
	sort.Strings(names)
	for _, name := range names {
		// format(%I, %L) quotes the name and the value on the server: no
		// client-side quoting of user input.
		if err := settings.DeclareOwn(ctx, conn, name); err != nil {
			return false, err
		}
		var stmt string
		if err := conn.QueryRow(ctx, "SELECT format('ALTER SYSTEM SET %I = %L', $1::text, $2::text)", name, values[name]).Scan(&stmt); err != nil {
			return false, err
		}
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return false, problem.Wrap(err, "fix the value (see 'pgoltp advise' for valid settings)", "PostgreSQL rejected %s = %q", name, values[name])
		}
	}
	if _, err := conn.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		return false, err
	}
	if len(names) == 0 {
		return false, nil // nothing set, nothing pending (PendingRestart of no names asks about all)
	}
	// The reload is a signal handled asynchronously; pending_restart is
	// reliable once our own backend has processed it too.
	time.Sleep(150 * time.Millisecond)
	pending, err := settings.PendingRestart(ctx, conn, names...)
	return len(pending) > 0, err
}
