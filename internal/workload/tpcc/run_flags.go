package tpcc

import (
	"io"
	"time"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/runfile"
)

// RunFlags are the flags of `pgoltp tpcc run` that are not RunOptions
// fields as given.
type RunFlags struct {
	Weights     string // NO,P,OS,D,SL card counts; "": the 23-card deck
	Progress    int    // seconds between live lines
	Check       string // CheckQuick, CheckFull or CheckNone
	DeliveryLog string // a file for one line per executed Delivery; "": none
	Procs       int    // CPUs the driver may use at once (driver.UseCPUs)
}

// Workload reads the flags with o into the run's workload, checks it and
// sets the driver's CPUs; a bad flag is a bad-input problem.
func (f RunFlags) Workload(o RunOptions) (*Workload, error) {
	if f.Weights != "" {
		w, err := ParseWeights(f.Weights)
		if err != nil {
			return nil, problem.BadInput("pass five card counts NO,P,OS,D,SL, e.g. --weights 45,43,4,4,4", "%s", err.Error())
		}
		o.Weights = w
	}
	o.Progress = time.Duration(f.Progress) * time.Second
	w := &Workload{Options: o, CheckMode: f.Check}
	if err := w.Validate(); err != nil {
		return nil, problem.BadInput("see 'pgoltp tpcc run --help'", "%s", err.Error())
	}
	if err := driver.UseCPUs(f.Procs, w.Options.AllConns()); err != nil {
		return nil, problem.BadInput("see 'pgoltp tpcc run --help'", "%s", err.Error())
	}
	return w, nil
}

// Outputs sends w's live lines to progress and opens the delivery log; the
// returned close ends it.
func (f RunFlags) Outputs(w *Workload, progress io.Writer) (close func(), err error) {
	if w.Options.Progress > 0 {
		w.Options.ProgressOut = progress
	}
	if f.DeliveryLog == "" {
		return func() {}, nil
	}
	file, err := runfile.Create(f.DeliveryLog)
	if err != nil {
		return nil, problem.Wrap(err, "pass a writable --delivery-log path", "cannot create the delivery log")
	}
	w.Options.DeliveryLog = file
	return func() { file.Close() }, nil
}
