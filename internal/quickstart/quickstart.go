// Package quickstart is the loop of 'pgoltp quickstart' on a server it is
// given: load TPC-C (reusing the same load), run it recorded with live
// progress, check its consistency, and print its summary. The command brings
// up the server before and writes the stored run's report after.
package quickstart

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/pgoltp/pgoltp/internal/field"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// Options are the quickstart's flags.
type Options struct {
	Warehouses  int
	Duration    time.Duration // measured, after a 5 s ramp-up
	Path        string        // tpcc.PathClient or PathServer
	Log         io.Writer     // the steps, the load's and the run's progress, the check's report
	ProgressBar bool          // Log is a terminal: show the load as a bar
	// FreeDisk is the free space of the server's data directory, for the
	// load's disk check (tpcc.LoadOptions.FreeDisk); nil: not known.
	FreeDisk func() (int64, error)

	run *tpcc.Workload // the loop's run, built by Validate
}

// Validate checks the options before any server is touched, and builds the
// loop's run: no-wait mode, fully checked. Its errors are field errors
// (field.Error): its own name the fix, the run's are tpcc's.
func (o *Options) Validate() error {
	if o.Warehouses < 1 || o.Warehouses > tpcc.MaxWarehouses {
		return field.New("Warehouses", o.Warehouses, "{} %d is out of range", o.Warehouses).Fix("pass {} 1 to %d", tpcc.MaxWarehouses)
	}
	if o.Duration < 5*time.Second {
		return field.New("Duration", o.Duration, "{} %s is too short to measure", o.Duration).Fix("pass {} 5s or more")
	}
	o.run = &tpcc.Workload{CheckMode: tpcc.CheckFull, Options: tpcc.RunOptions{Path: o.Path, Mode: tpcc.ModeNoWait,
		Duration: o.Duration, Ramp: 5 * time.Second, Progress: 5 * time.Second, ProgressOut: o.Log}}
	return o.run.Validate()
}

// Run is steps 2 to 4 of 5 on dsn: load, run recorded as rec says, check;
// then it prints the run's summary to out. o must have been validated.
func Run(ctx context.Context, dsn string, o *Options, rec recorder.Options, out io.Writer) (*recorder.Outcome, error) {
	fmt.Fprintf(o.Log, "== 2/5 loading TPC-C, %d warehouses\n", o.Warehouses)
	st, err := tpcc.Load(ctx, dsn, tpcc.LoadOptions{Warehouses: o.Warehouses, Progress: o.Log, ProgressBar: o.ProgressBar,
		FreeDisk: o.FreeDisk})
	if err != nil { // tpcc.ErrLoadExists: another load is there
		return nil, err
	}
	if st.AlreadyLoaded {
		fmt.Fprintln(o.Log, "   already loaded: reusing it")
	}
	fmt.Fprintf(o.Log, "== 3/5 running TPC-C (%s path, no-wait) for %s after a 5s ramp-up\n", o.Path, o.Duration)
	res, err := recorder.Run(ctx, dsn, o.run, rec)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(o.Log, "== 4/5 consistency")
	if rep := tpcc.CheckReportOf(res.Check); rep != nil {
		_ = rep.WriteText(o.Log)
	}
	fmt.Fprintln(o.Log, "== 5/5 report")
	return res, res.Result.Detail.(*tpcc.RunResult).WriteSummary(out)
}
