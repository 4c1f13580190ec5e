package pending

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// Guard keeps the record of one command's changes to one server. A nil
// Guard keeps none (tests of the mechanics of a command).
type Guard struct {
	Lab, Key, Server, Command string
	Cluster                   bool // the lab's managed cluster
	// Resume: a pending record of the server is this command's own, left
	// by a run it continues (tune --resume): its originals are kept and
	// extended instead of refused.
	Resume bool
	// created: Begin wrote a new record, which Abandon may remove.
	created bool
	// kept: a restore failed (Keep); Done leaves the record.
	kept bool
}

// Keep makes Done leave the record: something it holds was not restored.
func (g *Guard) Keep() {
	if g != nil {
		g.kept = true
	}
}

// ForCluster guards the managed cluster of lab.
func ForCluster(lab, command string) (*Guard, error) {
	abs, err := filepath.Abs(lab)
	if err != nil {
		return nil, err
	}
	key := ClusterKey(abs)
	return &Guard{Lab: abs, Key: key, Server: "the lab's cluster in " + key, Command: command, Cluster: true}, nil
}

// ClusterKey is the key of the managed cluster of lab (an absolute path).
func ClusterKey(lab string) string { return filepath.Join(lab, "data") }

// ForDSN guards the server dsn names, with its record in lab.
func ForDSN(lab, dsn, command string) (*Guard, error) {
	key, server, err := DSNKey(dsn)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(lab)
	if err != nil {
		return nil, err
	}
	return &Guard{Lab: abs, Key: key, Server: server, Command: command}, nil
}

// DSNKey is the key (host:port: the server, whatever the database) and the
// description without password of the server dsn names.
func DSNKey(dsn string) (key, server string, err error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return "", "", problem.BadInput("fix --dsn", "--dsn is not a valid connection string")
	}
	key = fmt.Sprintf("%s:%d", cfg.Host, cfg.Port)
	return key, fmt.Sprintf("postgres://%s@%s/%s", cfg.User, key, cfg.Database), nil
}

// Begin writes the record of the named settings' values in before: call it
// before the first change. It refuses when a record of the server is
// pending (the values on the server are not its originals), unless Resume,
// even when names is empty.
// It returns the values to restore: before, with a pending record's
// originals in place of the leftovers the server shows now.
func (g *Guard) Begin(before map[string]settings.Live, names []string) (map[string]settings.Live, error) {
	if g == nil {
		return before, nil
	}
	rec, err := Find(g.Lab, g.Key)
	if err != nil {
		return nil, err
	}
	if rec != nil && rec.Running() {
		return nil, problem.BadInput("wait for it to end", "%s", rec.Describe())
	}
	if rec != nil && !g.Resume {
		fix := fmt.Sprintf("run 'pgoltp restore --lab %s' first", g.Lab)
		if !g.Cluster {
			fix = fmt.Sprintf("run 'pgoltp restore --lab %s --dsn ...' first, with this --dsn", g.Lab)
		}
		return nil, problem.BadInput(fix, "%s", rec.Describe())
	}
	if len(names) == 0 {
		return before, nil // nothing will change: nothing to keep
	}
	if rec == nil {
		rec = &Record{Key: g.Key, Started: time.Now().UTC(), Settings: map[string]settings.Live{}}
		g.created = true
	}
	rec.Server, rec.Cluster, rec.Command, rec.PID = g.Server, g.Cluster, g.Command, os.Getpid()
	for _, n := range names {
		if _, kept := rec.Settings[n]; !kept {
			if l, ok := before[n]; ok {
				rec.Settings[n] = l
			}
		}
	}
	if err := Write(g.Lab, rec); err != nil {
		return nil, err
	}
	out := maps.Clone(before)
	maps.Copy(out, rec.Settings)
	return out, nil
}

// BeginOS adds the originals of machine-wide OS settings to the record (the
// same record as the server's settings, so that 'pgoltp restore' and every
// warning see both): call it before the first OS change, after Begin. A
// key already kept keeps its first original. It refuses a pending record of
// another command, as Begin does, and any record of OS settings left in
// this lab for another server or in lastLab (the lab of the last command
// that changed the OS, "" if unknown): the machine's values are not its
// originals then. It returns the originals to restore.
func (g *Guard) BeginOS(originals map[string]string, dataDir, lastLab string) (map[string]string, error) {
	if g == nil || len(originals) == 0 {
		return originals, nil
	}
	if err := g.otherOSRecord(lastLab); err != nil {
		return nil, err
	}
	rec, err := Find(g.Lab, g.Key)
	if err != nil {
		return nil, err
	}
	if rec != nil && rec.Running() {
		return nil, problem.BadInput("wait for it to end", "%s", rec.Describe())
	}
	if rec != nil && rec.PID != os.Getpid() && !g.Resume {
		return nil, problem.BadInput(fmt.Sprintf("run 'pgoltp restore --lab %s' first", g.Lab), "%s", rec.Describe())
	}
	if rec == nil {
		rec = &Record{Key: g.Key, Started: time.Now().UTC(), Settings: map[string]settings.Live{}}
		g.created = true
	}
	rec.Server, rec.Cluster, rec.Command, rec.PID = g.Server, g.Cluster, g.Command, os.Getpid()
	if rec.OS == nil {
		rec.OS = map[string]string{}
	}
	for n, v := range originals {
		if _, kept := rec.OS[n]; !kept {
			rec.OS[n] = v
		}
	}
	if dataDir != "" {
		rec.OSDataDir = dataDir
	}
	if err := Write(g.Lab, rec); err != nil {
		return nil, err
	}
	return maps.Clone(rec.OS), nil
}

// otherOSRecord refuses while a record of OS settings of another server
// (this lab's) or of another lab (lastLab) is pending.
func (g *Guard) otherOSRecord(lastLab string) error {
	for _, lab := range []string{g.Lab, lastLab} {
		if lab == "" {
			continue
		}
		all, err := All(lab)
		if err != nil {
			return err
		}
		for _, r := range all {
			if len(r.OS) == 0 || lab == g.Lab && r.Key == g.Key {
				continue
			}
			fix := fmt.Sprintf("run 'pgoltp restore --lab %s' first", lab)
			if !r.Cluster {
				fix = fmt.Sprintf("run 'pgoltp restore --lab %s --dsn ...' first, with a connection string to %s", lab, r.Server)
			}
			return problem.BadInput(fix, "%s", r.Describe())
		}
	}
	return nil
}

// LabDir is the lab that keeps the guard's record.
func (g *Guard) LabDir() string {
	if g == nil {
		return ""
	}
	return g.Lab
}

// Abandon removes the record Begin wrote when the command stops before any
// change; a record that was pending before Begin stays.
func (g *Guard) Abandon() error {
	if g == nil || !g.created {
		return nil
	}
	return Remove(g.Lab, g.Key)
}

// Done removes the record: call it only after the restore was verified.
func (g *Guard) Done() error {
	if g == nil || g.kept {
		return nil
	}
	return Remove(g.Lab, g.Key)
}
