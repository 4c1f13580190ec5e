package main

import (
	"context"
	"fmt"
	"io"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// Consistency check after a run: every run ends with one unless asked not to.
const (
	checkNone  = "none"
	checkQuick = "quick" // skips the expensive per-customer conditions
	checkFull  = "full"
)

func validCheckMode(mode string) error {
	switch mode {
	case checkNone, checkQuick, checkFull:
		return nil
	}
	return problem.BadInput("use --check full, quick or none", "unknown --check %q", mode)
}

// tpccOutcome is what a recorded TPC-C run produced.
type tpccOutcome struct {
	Result *tpcc.RunResult
	RunID  string
	Check  *tpcc.CheckReport // nil with --check none, or when the run was interrupted
}

// runTPCCRecorded runs TPC-C with the collectors sampling, checks the database
// afterwards and stores everything as one run. The run is stored even when it
// was interrupted or failed, with that status.
func runTPCCRecorded(ctx context.Context, dsn string, opts tpcc.RunOptions, check string, progress io.Writer) (*tpccOutcome, error) {
	rec, err := startRecording(ctx, "tpcc", fmt.Sprintf("TPC-C %s/%s", opts.Path, opts.Mode), dsn, nil)
	if err != nil {
		return nil, err
	}
	out := &tpccOutcome{}
	res, runErr := tpcc.Run(ctx, dsn, opts)
	out.Result = res
	interrupted := ctx.Err() != nil || (res != nil && res.Interrupted)
	if res != nil {
		fillTPCC(rec.run, res)
	}
	if runErr == nil && check != checkNone && !interrupted {
		if progress != nil {
			fmt.Fprintf(progress, "checking consistency (%s)...\n", check)
		}
		rep, err := tpcc.Check(ctx, dsn, tpcc.CheckOptions{Schema: opts.Schema, Quick: check == checkQuick, Fresh: tpcc.FreshNo})
		if err != nil {
			rec.run.Notes = append(rec.run.Notes, "consistency check could not run: "+err.Error())
		} else {
			out.Check = &rep
			failed := rep.Failed()
			rec.run.Headline = append(rec.run.Headline, store.Figure{Name: "consistency checks failed", Value: float64(len(failed)), Unit: "checks"})
			var checks []verdict
			for _, r := range rep.Results {
				checks = append(checks, verdict{r.Status, fmt.Sprintf("%s (%s %s)", r.Name, r.Clause, r.Title)})
			}
			rec.run.Notes = append(rec.run.Notes, summarize(fmt.Sprintf("consistency check (%s)", check), checks))
		}
	}
	if runErr != nil {
		rec.run.Notes = append(rec.run.Notes, "run failed: "+runErr.Error())
	}
	id, storeErr := rec.finish(ctx, runStatus(interrupted, runErr))
	out.RunID = id
	if runErr != nil {
		return out, runErr
	}
	return out, storeErr
}

// checkVerdict turns a failed consistency check into exit code 1.
func checkVerdict(rep *tpcc.CheckReport) error {
	if rep == nil || rep.Passed {
		return nil
	}
	names := ""
	for i, f := range rep.Failed() {
		if i > 0 {
			names += ", "
		}
		names += f.Name
	}
	return problem.Failed("the database is inconsistent after the run: %s failed; run 'pgoltp tpcc check' for the violating rows", names)
}
