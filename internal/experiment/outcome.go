package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/runfile"
	"github.com/pgoltp/pgoltp/internal/secret"
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

// KeepReport saves a report (SaveReport) and says where on log; a failure
// to save is said too, but does not fail the command.
func KeepReport(lab, kind string, rep any, log io.Writer) {
	path, err := SaveReport(lab, kind, rep)
	if err != nil {
		fmt.Fprintf(log, "could not save the %s report: %v\n", kind, err)
		return
	}
	fmt.Fprintf(log, "%s report saved to %s\n", kind, path)
}

// SaveReport keeps a report of kind (experiment, crash) as JSON in
// LAB/experiments (0600, a new file per report: two saved in the same second
// get distinct names), secrets redacted (secret.WriteJSON), and returns its
// path.
func SaveReport(lab, kind string, rep any) (string, error) {
	var b bytes.Buffer
	if err := secret.WriteJSON(&b, rep); err != nil {
		return "", err
	}
	root, err := runfile.OpenLab(lab)
	if err != nil {
		return "", err
	}
	defer root.Close()
	name, err := runfile.WriteUnique(root, "experiments", kind+"-"+time.Now().UTC().Format("20060102T150405Z"), ".json", b.Bytes())
	if err != nil {
		return "", err
	}
	return filepath.Join(lab, name), nil
}

// Verdict is how an experiment ends for the command, given Run's error and
// whether the command was interrupted: Failure when it ran to its end, the
// error itself when it is a problem (bad input), else a failure that says
// whether the original settings were restored.
func (r *Report) Verdict(err error, interrupted bool) error {
	var p *problem.Problem
	switch {
	case r != nil && !r.Restored && !interrupted:
		return problem.Failed("%s; the original settings could NOT be restored (see the note above): run 'pgoltp restore'", Stopped("experiment", err))
	case err == nil:
		return r.Failure()
	case errors.As(err, &p):
		return err
	case interrupted && r != nil && r.Restored:
		return problem.Failed("experiment interrupted; the runs finished so far are reported above and the settings restored")
	case interrupted:
		return problem.Failed("experiment interrupted; the runs finished so far are reported above; the original settings could NOT be restored (see the note above): run 'pgoltp restore'")
	}
	return problem.Failed("experiment stopped: %v", err)
}

// Stopped says how a command of kind ended: finished, or stopped by err.
func Stopped(kind string, err error) string {
	if err == nil {
		return kind + " finished"
	}
	return fmt.Sprintf("%s stopped: %v", kind, err)
}

// ReadPlan reads and checks the plan file at path: every problem with it is
// bad input naming the file.
func ReadPlan(path string) (*Plan, error) {
	return ReadPlanWithSteps(path, nil)
}

// ReadPlanWithSteps reads a plan file as a header for steps made elsewhere
// (doctor's OS recommendations): its workload, duration and baseline, with
// steps in place of its own, which it may leave out. Nil steps: ReadPlan.
func ReadPlanWithSteps(path string, steps []Step) (*Plan, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, problem.BadInput("give the path of a plan file", "cannot read plan %s", path)
	}
	defer file.Close()
	plan, err := parsePlan(file, steps)
	if err != nil {
		return nil, problem.BadInput("fix the plan file (see 'pgoltp experiment --help')", "%s: %v", path, err)
	}
	return plan, nil
}
