package main

import (
	"context"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"

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

// tpccOutcome is what a TPC-C run produced.
type tpccOutcome struct {
	Result *tpcc.RunResult
	RunID  string            // "" when not recorded
	Check  *tpcc.CheckReport // nil with --check none, or when the run was interrupted
}

// runTPCC runs TPC-C, checks the database afterwards and, with record, stores
// everything as one run with the collectors sampling around it. A recorded run
// is stored even when it was interrupted or failed, with that status; a
// database that holds no complete load fails before anything is stored.
func runTPCC(ctx context.Context, dsn string, opts tpcc.RunOptions, check string, record bool, progress io.Writer) (*tpccOutcome, error) {
	loaded, err := tpccLoaded(ctx, dsn, opts.Schema)
	if err != nil {
		return nil, err
	}
	// Options that do not fit the load are refused before anything is stored.
	if err := opts.Resolve(loaded); err != nil {
		return nil, err
	}
	var rec *recording
	if record {
		var err error
		if rec, err = startRecording(ctx, "tpcc", fmt.Sprintf("TPC-C %s/%s", opts.Path, opts.Mode), dsn, nil); err != nil {
			return nil, err
		}
	}
	var notes []string
	var headline []store.Figure
	out := &tpccOutcome{}
	res, runErr := tpcc.Run(ctx, dsn, opts)
	out.Result = res
	interrupted := ctx.Err() != nil || (res != nil && res.Interrupted)
	if runErr == nil && check != checkNone && !interrupted {
		if progress != nil {
			fmt.Fprintf(progress, "checking consistency (%s)...\n", check)
		}
		rep, err := tpcc.Check(ctx, dsn, tpcc.CheckOptions{Schema: opts.Schema, Quick: check == checkQuick, Fresh: tpcc.FreshNo})
		if err != nil {
			notes = append(notes, "consistency check could not run: "+err.Error())
		} else {
			out.Check = &rep
			headline = append(headline, store.Figure{Name: "consistency checks failed", Value: float64(len(rep.Failed())), Unit: "checks"})
			var checks []verdict
			for _, r := range rep.Results {
				checks = append(checks, verdict{r.Status, fmt.Sprintf("%s (%s %s)", r.Name, r.Clause, r.Title)})
			}
			notes = append(notes, summarize(fmt.Sprintf("consistency check (%s)", check), checks))
		}
	}
	if runErr != nil {
		notes = append(notes, "run failed: "+runErr.Error())
	}
	if rec == nil {
		return out, runErr
	}
	if res != nil {
		fillTPCC(rec.run, res)
	}
	rec.run.Headline = append(rec.run.Headline, headline...)
	rec.run.Notes = append(rec.run.Notes, notes...)
	id, storeErr := rec.finish(ctx, runStatus(interrupted, runErr))
	out.RunID = id
	if runErr != nil {
		return out, runErr
	}
	return out, storeErr
}

// tpccLoaded says whether schema at dsn holds a complete TPC-C load, and how
// many warehouses it holds.
func tpccLoaded(ctx context.Context, dsn, schema string) (warehouses int, err error) {
	cfg, err := tpcc.ConnConfig(dsn, schema)
	if err != nil {
		return 0, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	meta, err := tpcc.ReadMeta(ctx, conn)
	if err != nil {
		return 0, err
	}
	if !meta.Complete {
		return 0, tpcc.ErrNotComplete
	}
	return meta.Warehouses, nil
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
