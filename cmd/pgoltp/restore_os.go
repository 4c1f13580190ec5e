package main

import (
	"context"
	"fmt"
	"github.com/pgoltp/pgoltp/internal/restore"
	"os"

	"github.com/pgoltp/pgoltp/internal/ossettings"
	"github.com/pgoltp/pgoltp/internal/pending"
	"github.com/pgoltp/pgoltp/internal/problem"
)

// restoreSettings puts the record's server settings back (nothing to do,
// and no server to start, for a record of OS settings only).
func restoreSettings(ctx context.Context, rec *pending.Record, names []string) error {
	if len(rec.Settings) == 0 {
		return nil
	}
	srv, dsn, err := restoreTarget(ctx)
	if err != nil {
		return err
	}
	return restore.Settings(ctx, srv, dsn, rec.Settings, names)
}

// restoreOS writes the record's machine-wide OS settings back and reads
// them back (internal/ossettings); the record stays on failure.
func restoreOS(rec *pending.Record) error {
	if len(rec.OS) == 0 {
		return nil
	}
	if os.Geteuid() != 0 {
		return problem.Failed("%s changed the machine-wide OS settings %v and only root can put them back: run 'sudo pgoltp restore' (the record stays)",
			rec.Command, rec.OSNames())
	}
	m := &ossettings.Machine{DataDir: rec.OSDataDir}
	if err := m.Restore(rec.OS); err != nil {
		return problem.Failed("could not restore the OS settings %s left: %v (the record stays: fix the cause and run 'pgoltp restore' again)",
			rec.Command, err)
	}
	return nil
}

// warnPendingOS says when another record, of the lab (another server's) or
// of the lab the machine's lock names (another lab's), holds machine-wide
// OS settings: they change this command's machine too.
func warnPendingOS(g *pending.Guard) {
	for _, lab := range []string{g.Lab, ossettings.LastLab()} {
		all, err := pending.All(lab)
		if lab == "" || err != nil {
			continue
		}
		for _, rec := range all {
			if len(rec.OS) > 0 && (lab != g.Lab || rec.Key != g.Key) {
				how := "pgoltp restore --lab " + lab
				if !rec.Cluster {
					how += " --dsn ..."
				}
				fmt.Fprintf(os.Stderr, "pgoltp: WARNING: %s: run '%s' to put them back\n", rec.Describe(), how)
				return
			}
		}
	}
}
