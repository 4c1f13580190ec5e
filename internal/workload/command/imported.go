package command

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/pgbenchlog"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Imported is a pgbench run made elsewhere, read from its per-transaction
// log (and, if kept, its standard output): `pgoltp import pgbench-log`.
type Imported struct {
	Log      pgbenchlog.Log
	Output   *pgbenchlog.Output // nil when pgbench's output was not kept
	Fields   pgbenchlog.Fields
	Sampling float64 // the fraction logged (--sampling-rate; 0 or 1: all)
	Title    string
}

// Kind is "pgbench".
func (im *Imported) Kind() string { return "pgbench" }

// Name is the title, or where the log was.
func (im *Imported) Name() string {
	if im.Title != "" {
		return im.Title
	}
	return fmt.Sprintf("pgbench log %s.%d", im.Log.Prefix, im.Log.PID)
}

// Prepare is refused: an imported run has already run.
func (im *Imported) Prepare(context.Context, string, workload.Layout) error {
	return errors.New("an imported run has already run")
}

// Unchecked: there is no consistency check to announce.
func (im *Imported) Unchecked() bool { return true }

// Check has nothing to check.
func (im *Imported) Check(context.Context, string) (*workload.Check, error) { return nil, nil }

// Start reads when the run began: its first transaction's start.
func (im *Imported) Start() (time.Time, error) {
	var start time.Time
	errStop := errors.New("stop")
	err := im.Log.Each(im.Fields, func(t pgbenchlog.Txn) error {
		start = t.Start()
		return errStop
	})
	if err != nil && err != errStop {
		return time.Time{}, err
	}
	if start.IsZero() {
		return time.Time{}, fmt.Errorf("%s.%d: the log holds no transaction", im.Log.Prefix, im.Log.PID)
	}
	return start, nil
}

// Run reads the log into a result.
func (im *Imported) Run(_ context.Context, _ string, ro workload.RunOptions) (*workload.Result, error) {
	opts := pgbenchlog.Options{Fields: im.Fields}
	res := &workload.Result{}
	if im.Output != nil {
		opts.Scripts = scriptNames(res, im.Output.Scripts)
		for _, p := range im.Output.Params {
			res.Params = append(res.Params, workload.Param{Name: p[0], Value: p[1]})
		}
		if im.Output.HasTPS {
			res.Headline = append(res.Headline, workload.Figure{Name: "TPS", Value: im.Output.TPS, Unit: "txn/s"})
		}
	}
	res.Params = append(res.Params, workload.Param{Name: "imported from", Value: strings.Join(im.Log.Files, ", ")})
	if fn := ro.OnInterval; fn != nil {
		opts.OnSecond = func(s *metrics.Snapshot) { fn(s, pgbenchlog.CounterFailed) }
	}
	sum, err := pgbenchlog.Summarize(im.Log, opts)
	if err != nil {
		return nil, err
	}
	sampling := im.Sampling
	if sampling <= 0 || sampling > 1 {
		sampling = 1
	}
	fillFromLog(res, sum, sampling)
	res.End = sum.End
	return res, nil
}
