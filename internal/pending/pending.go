// Package pending keeps restore records. Before a command first changes a
// server's settings for a while (an experiment, a search, a durability
// audit), it writes the settings' original values into the lab, fsynced;
// the record is removed only after the restore was verified on the server.
// A record left behind (kill -9, a power cut, a failed restore) is how
// every later command knows the server is not as it was, and what
// 'pgoltp restore' puts back.
//
// A record names its server without a password and stores no secret value.
// It must not know how settings are applied, nor any workload.
package pending

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/pgoltp/pgoltp/internal/secret"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// Record is the original settings of one server, kept until they are back.
type Record struct {
	// Key identifies the server: the managed cluster's data directory, or
	// host:port of a server given by --dsn.
	Key string `json:"key"`
	// Server is the server for people, without a password: "the lab's
	// cluster in /lab/data", "postgres://bench@db1:5432/pgoltp".
	Server  string    `json:"server"`
	Cluster bool      `json:"cluster"` // the lab's managed cluster, not a --dsn server
	Command string    `json:"command"` // experiment, tune, experiment --crash
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	// Settings are the values as pg_settings showed them before the first
	// change, with where they came from (postgresql.auto.conf or not).
	Settings map[string]settings.Live `json:"settings"`
	// OS are the machine-wide kernel and disk settings (internal/ossettings)
	// as they were before the first change; OSDataDir is the data directory
	// whose disk the block.* keys name.
	OS        map[string]string `json:"os,omitempty"`
	OSDataDir string            `json:"os_data_dir,omitempty"`
}

// OSNames are the record's OS settings, sorted.
func (r *Record) OSNames() []string {
	names := make([]string, 0, len(r.OS))
	for n := range r.OS {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// changed is what the record keeps, for people: the settings, then the OS
// settings labelled machine-wide.
func (r *Record) changed() string {
	what := strings.Join(r.Names(), ", ")
	if len(r.OS) > 0 {
		if what != "" {
			what += " and "
		}
		what += "the machine-wide OS settings " + strings.Join(r.OSNames(), ", ")
	}
	return what
}

// Names are the record's settings, sorted.
func (r *Record) Names() []string {
	names := make([]string, 0, len(r.Settings))
	for n := range r.Settings {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Restorable splits the record's settings into those 'pgoltp restore' can
// put back and those it cannot: a secret value set with ALTER SYSTEM, which
// was never written (a secret that came from elsewhere is reset, which
// needs no value).
func (r *Record) Restorable() (names, secrets []string) {
	for _, n := range r.Names() {
		if l := r.Settings[n]; l.Setting == secret.Redacted && l.FromAutoConf() {
			secrets = append(secrets, n)
		} else {
			names = append(names, n)
		}
	}
	return names, secrets
}

// Describe is the record in one line: what changed which server, when, and
// whether that command still runs.
func (r *Record) Describe() string {
	if r.Running() {
		return fmt.Sprintf("%s (pid %d, since %s) is changing %s on %s right now",
			r.Command, r.PID, r.Started.Local().Format("2006-01-02 15:04:05"), r.changed(), r.Server)
	}
	return fmt.Sprintf("%s (pid %d, %s) changed %s on %s and did not restore them",
		r.Command, r.PID, r.Started.Local().Format("2006-01-02 15:04:05"), r.changed(), r.Server)
}

// Running reports whether the process that wrote the record still runs (a
// --dsn experiment holds no lab lock): then the record is not a leftover,
// and restoring would change the settings under it. Another process that
// reused the pid makes a false yes, which the message lets a person see.
func (r *Record) Running() bool {
	if r.PID <= 0 || r.PID == os.Getpid() {
		return false
	}
	p, err := os.FindProcess(r.PID)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// dir is where a lab keeps its restore records.
func dir(lab string) string { return filepath.Join(lab, "restore") }

// Path is the record of the server key in lab.
func Path(lab, key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(dir(lab), hex.EncodeToString(sum[:8])+".json")
}

// Write stores r in lab atomically: a 0600 temporary file, fsynced, renamed
// over the old record, the directory fsynced, so that a crash leaves the old
// record or the new one, and a record that was written survives a power cut.
// Secret values are never written (settings.Redact).
func Write(lab string, r *Record) error {
	clean := *r
	clean.Settings = make(map[string]settings.Live, len(r.Settings))
	for n, l := range r.Settings {
		l.Setting, l.BootVal = secret.Redact(n, l.Setting), secret.Redact(n, l.BootVal)
		clean.Settings[n] = l
	}
	b, err := json.MarshalIndent(&clean, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir(lab), 0o700); err != nil {
		return fmt.Errorf("restore record: %w", err)
	}
	tmp, err := os.CreateTemp(dir(lab), ".record-*.tmp")
	if err != nil {
		return fmt.Errorf("restore record: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(append(b, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), Path(lab, r.Key))
	}
	if err == nil {
		err = syncDir(dir(lab))
	}
	if err != nil {
		return fmt.Errorf("restore record: %w", err)
	}
	return nil
}

// Find returns the pending record of the server key in lab, nil when there
// is none.
func Find(lab, key string) (*Record, error) {
	b, err := readNoFollow(Path(lab, key))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("restore record: %w", err)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("restore record %s is damaged: %w", Path(lab, key), err)
	}
	return &r, nil
}

// All returns every pending record in lab.
func All(lab string) ([]*Record, error) {
	matches, err := filepath.Glob(filepath.Join(dir(lab), "*.json"))
	if err != nil {
		return nil, err
	}
	var out []*Record
	for _, m := range matches {
		b, err := readNoFollow(m)
		if err != nil {
			return nil, fmt.Errorf("restore record: %w", err)
		}
		var r Record
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("restore record %s is damaged: %w", m, err)
		}
		out = append(out, &r)
	}
	return out, nil
}

// Remove deletes the record of the server key, durably: call it only once
// the restore is verified.
func Remove(lab, key string) error {
	if err := os.Remove(Path(lab, key)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("restore record: %w", err)
	}
	return syncDir(dir(lab))
}

// readNoFollow reads the regular file at p, never through a symlink.
func readNoFollow(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	return io.ReadAll(f)
}

// syncDir makes a rename or removal in d durable.
func syncDir(d string) error {
	f, err := os.Open(d)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
