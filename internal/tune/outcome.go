package tune

import (
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/runfile"
)

// Failure is the experiment's failure (exit code 1) when a step's setting
// was not in effect during a run: its numbers prove nothing.
func (r *Report) Failure() error {
	for _, s := range r.Steps {
		if !s.InEffect {
			return problem.Failed("step %q: a setting was not in effect during a run; its numbers prove nothing", s.Name)
		}
	}
	return nil
}

// Failure is the audit's failure (exit code 1) when acknowledged commits
// were lost with durable settings.
func (r *CrashReport) Failure() error {
	if r.Missing > 0 && len(r.Unsafe) == 0 {
		return problem.Failed("%d acknowledged commits lost with durable settings", r.Missing)
	}
	return nil
}

// SaveReport keeps a report of kind (experiment, crash) as JSON in
// LAB/experiments (0600, a new file per report: two saved in the same second
// get distinct names) and returns its path.
func SaveReport(lab, kind string, rep any) (string, error) {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(lab, "experiments")
	return runfile.WriteUnique(dir, kind+"-"+time.Now().UTC().Format("20060102T150405Z"), ".json", append(b, '\n'))
}
