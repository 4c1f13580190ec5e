package tune

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"time"

	"github.com/pgoltp/pgoltp/internal/search"
	"github.com/pgoltp/pgoltp/internal/secret"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/tune/record"
)

// State is a search as stored in LAB/tune/<id>.json after every trial, so
// that --resume continues it: the space, the seed, the start and advise
// points and every observation, in order.
type State struct {
	ID          string             `json:"id"`
	Seed        int64              `json:"seed"`
	Workload    string             `json:"workload"`
	Objective   string             `json:"objective"`
	MaxP99      time.Duration      `json:"max_p99_ns,omitempty"`
	AllowUnsafe bool               `json:"allow_unsafe"`
	Budget      int                `json:"budget"`
	Trial       time.Duration      `json:"trial_ns"`
	Dimensions  []search.Dimension `json:"dimensions"`
	Start       map[string]string  `json:"start"`
	Advise      map[string]string  `json:"advise,omitempty"`
	Trials      []Trial            `json:"trials"`
	Baselines   []float64          `json:"baselines"` // objective level of each baseline run, in order
	// BaselineRuns are the same runs with what they followed (stored
	// since the search's report).
	BaselineRuns []record.Baseline `json:"baseline_runs,omitempty"`
	Started      time.Time         `json:"started"`
	// Original are the server's settings the search may change, as they
	// were before its first change: what --resume restores, whatever a
	// killed trial left on the server.
	Original map[string]settings.Live `json:"original,omitempty"`
}

// originals is live with the search's stored original values in place of
// what the server shows now; live itself when s is nil or older than
// Original.
func (s *State) originals(live map[string]settings.Live) map[string]settings.Live {
	if s == nil || len(s.Original) == 0 {
		return live
	}
	out := maps.Clone(live)
	maps.Copy(out, s.Original)
	return out
}

// Trial is one evaluated configuration.
type Trial = record.Trial

// Path is where the state of search id is kept in the lab.
func Path(lab, id string) string { return filepath.Join(lab, "tune", id+".json") }

// Save writes the state atomically (a 0600 temporary file renamed over
// the old one): a crash leaves the previous state or the new one, never half.
// Secrets are redacted (secret.WriteJSON): the search never tunes a setting
// that holds one.
func (s *State) Save(lab string) error {
	path := Path(lab, s.ID)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := secret.WriteJSON(&b, s); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+s.ID+"-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Create claims a new search id in the lab (O_EXCL: never over another
// search's state) and saves the state there.
func (s *State) Create(lab string) error {
	path := Path(lab, s.ID)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("search %s: %w", s.ID, err)
	}
	f.Close()
	return s.Save(lab)
}

// Load reads a stored search; id "" is the newest one.
func Load(lab, id string) (*State, error) {
	if id == "" {
		matches, _ := filepath.Glob(filepath.Join(lab, "tune", "*.json"))
		var newest time.Time
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && fi.ModTime().After(newest) {
				newest, id = fi.ModTime(), filepath.Base(m[:len(m)-len(".json")])
			}
		}
		if id == "" {
			return nil, errors.New("no stored search in this lab")
		}
	}
	b, err := os.ReadFile(Path(lab, id))
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", id, err)
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("search %s: %w", id, err)
	}
	return &s, nil
}
