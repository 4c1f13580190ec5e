package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/pending"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/restore"
	"github.com/pgoltp/pgoltp/internal/server"
	"github.com/pgoltp/pgoltp/internal/settings"
)

func init() {
	cmd := &cobra.Command{
		Use:   "restore",
		Short: "Put back the settings a killed experiment, tune or crash audit left changed",
		Long: `Before experiment, tune, experiment --crash or compare-versions first change a
server's settings, they write the original values into the lab (LAB/restore, or
LAB/pgNN/restore for a study's cluster: restore it with --lab LAB/pgNN); the record
is removed once the values are restored and read back. A command killed on the way (kill -9,
a power cut) or a restore that failed leaves the record, and every later command
on that server says so.

restore applies the record of the lab's managed cluster (or, with --dsn, of that
server): each value set with ALTER SYSTEM before is set again, any other is
reset, the configuration is reloaded (and the server restarted when a value
needs it), and every value is read back. Only then is the record removed; on
failure it stays and restore exits 1.`,
		Example: `  pgoltp restore
  pgoltp restore --dsn postgres://bench@db1/pgoltp`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRestore(cmd.Context(), cmd.OutOrStdout())
		},
	}
	rootCmd.AddCommand(cmd)
}

// restoreResult is what 'pgoltp restore' did, for --json.
type restoreResult struct {
	Server   string   `json:"server"`
	Command  string   `json:"command,omitempty"` // the command whose changes were put back
	Settings []string `json:"settings,omitempty"`
	OS       []string `json:"os,omitempty"` // machine-wide OS settings put back
	Restored bool     `json:"restored"`
}

func runRestore(ctx context.Context, out io.Writer) error {
	guard, err := pendingGuard(false)
	if err != nil {
		return err
	}
	rec, err := pending.Find(guard.Lab, guard.Key)
	if err != nil {
		return err
	}
	if rec != nil && global.dsn == "" && !exists(guard.Key) && len(rec.OS) > 0 {
		// The cluster was destroyed, the machine's settings are still to restore.
		rec.Settings = nil
	} else if rec != nil && global.dsn == "" && !exists(guard.Key) {
		// The cluster was destroyed: nothing is left to restore.
		if err := pending.Remove(guard.Lab, guard.Key); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "pgoltp: %s no longer exists; its restore record is removed\n", guard.Server)
		rec = nil
	}
	if rec == nil {
		if err := elsewhere(guard); err != nil {
			return err
		}
		res := restoreResult{Server: guard.Server, Restored: true}
		return emit(out, res, func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "nothing to restore on %s\n", guard.Server)
			return err
		})
	}
	if rec.Running() {
		return problem.BadInput("wait for it to end (it restores them itself), or stop it and run 'pgoltp restore' again", "%s", rec.Describe())
	}
	names, secret := rec.Restorable()
	settingsErr := restoreSettings(ctx, rec, names)
	// The machine's settings go back even when the server's could not:
	// they are the machine's, not the server's.
	if err := restoreOS(rec); err != nil {
		return err
	}
	if settingsErr != nil {
		return problem.Failed("could not restore the settings %s left on %s: %v (the record stays: fix the cause and run 'pgoltp restore' again)",
			rec.Command, rec.Server, settingsErr)
	}
	if len(secret) > 0 {
		return problemSecret(guard, rec, secret)
	}
	if err := pending.Remove(guard.Lab, guard.Key); err != nil {
		return problem.Failed("settings restored and read back, but the record stays: %v", err)
	}
	res := restoreResult{Server: rec.Server, Command: rec.Command, Settings: rec.Names(), OS: rec.OSNames(), Restored: true}
	return emit(out, res, func(w io.Writer) error {
		var err error
		if len(rec.Settings) > 0 || len(rec.OS) == 0 {
			_, err = fmt.Fprintf(w, "restored %d settings that %s (pid %d) left on %s, read back: %s\n",
				len(rec.Settings), rec.Command, rec.PID, rec.Server, strings.Join(rec.Names(), ", "))
		}
		if err == nil && len(rec.OS) > 0 {
			_, err = fmt.Fprintf(w, "restored %d machine-wide OS settings that %s (pid %d) left, read back: %s\n",
				len(rec.OS), rec.Command, rec.PID, strings.Join(rec.OSNames(), ", "))
		}
		return err
	})
}

// restoreTarget is the server 'pgoltp restore' works on and the DSN of an
// administrative database: --dsn, or the lab's managed cluster, started and
// held (its lock) to the end.
func restoreTarget(ctx context.Context) (restore.Server, string, error) {
	if global.dsn != "" {
		dsn, err := checkDSN(ctx, global.dsn)
		return server.External{DSN: dsn}, dsn, err
	}
	if err := holdLab(); err != nil {
		return nil, "", err
	}
	c, err := managedDatabase(ctx, "postgres")
	if err != nil {
		return nil, "", err
	}
	return c, c.DSN("postgres"), nil
}

// pendingGuard is the restore record of the server the command works on
// (--dsn or the lab's managed cluster), for the running command.
func pendingGuard(resume bool) (*pending.Guard, error) {
	var g *pending.Guard
	var err error
	if global.dsn != "" {
		g, err = pending.ForDSN(global.lab, global.dsn, commandName())
	} else {
		g, err = pending.ForCluster(global.lab, commandName())
	}
	if g != nil {
		g.Resume = resume
	}
	return g, err
}

var warnedPending sync.Once

// warnPending says, once per command and in one line, that the server it
// works on has settings pgoltp changed and did not put back. 'restore'
// itself is quiet (that is what it is for), and so are the commands that
// change settings: they refuse with the same line (or, resumed, take the
// record over).
func warnPending() {
	warnedPending.Do(func() {
		g, err := pendingGuard(false)
		if err != nil {
			return
		}
		switch commandName() {
		case "experiment", "tune":
			// They refuse over their server's record; another's OS
			// settings change what they measure without being theirs.
			warnPendingOS(g)
			return
		case "restore":
			return
		}
		if rec, err := pending.Find(g.Lab, g.Key); err != nil {
			fmt.Fprintf(os.Stderr, "pgoltp: %v\n", err)
		} else if rec == nil {
			warnPendingOS(g)
		} else if rec != nil && rec.Running() {
			fmt.Fprintf(os.Stderr, "pgoltp: WARNING: %s: what this command measures sees them\n", rec.Describe())
		} else if rec != nil {
			fmt.Fprintf(os.Stderr, "pgoltp: WARNING: %s: run 'pgoltp restore%s' to put them back\n", rec.Describe(), dsnHint())
		}
	})
}

// dsnHint is " --dsn ..." when the command was given --dsn, for the fix.
func dsnHint() string {
	if global.dsn == "" {
		return ""
	}
	return " --dsn ..."
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// problemSecret keeps in the record only the settings whose original value
// was a secret (never stored, so never restored by pgoltp) and says how to
// finish by hand.
func problemSecret(guard *pending.Guard, rec *pending.Record, secret []string) error {
	kept := map[string]settings.Live{}
	for _, n := range secret {
		kept[n] = rec.Settings[n]
	}
	rec.Settings = kept
	if err := pending.Write(guard.Lab, rec); err != nil {
		return err
	}
	return problem.Failed("restored every setting but %s, whose value was a secret pgoltp never stores: set it again yourself (ALTER SYSTEM), then delete %s",
		strings.Join(secret, ", "), pending.Path(guard.Lab, guard.Key))
}

// elsewhere refuses a restore of a server without a record when the lab
// holds the record of another one: the user meant that one.
func elsewhere(guard *pending.Guard) error {
	all, err := pending.All(guard.Lab)
	if err != nil || len(all) == 0 {
		return err
	}
	fix := "run 'pgoltp restore' without --dsn"
	if !all[0].Cluster {
		fix = fmt.Sprintf("run 'pgoltp restore --dsn' with a connection string to %s (and its password)", all[0].Server)
	}
	return problem.BadInput(fix, "nothing to restore on %s, but %s", guard.Server, all[0].Describe())
}
