package tpcc

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// checkSchemas checks each of opts.Schemas in turn, each in its own
// snapshot (they are independent databases), and folds the reports into one
// that passes when every schema passes.
func checkSchemas(ctx context.Context, dsn string, opts CheckOptions) (CheckReport, error) {
	start := time.Now()
	if opts.Schema != "" {
		return CheckReport{}, bothSchemas(opts.Schema)
	}
	if err := validSchemas(opts.Schemas); err != nil {
		return CheckReport{}, err
	}
	all := CheckReport{Schema: strings.Join(opts.Schemas, ","), Passed: true, Fresh: true}
	for _, s := range opts.Schemas {
		o := opts
		o.Schema, o.Schemas = s, nil
		rep, err := Check(ctx, dsn, o)
		if err != nil {
			return all, inSchema(err, s, opts.Schemas)
		}
		all.Schemas = append(all.Schemas, rep)
		all.Warehouses += rep.Warehouses
		all.Fresh = all.Fresh && rep.Fresh
		all.Passed = all.Passed && rep.Passed
		for _, r := range rep.Results {
			r.Name = schemaFigure(r.Name, s)
			all.Results = append(all.Results, r)
		}
	}
	all.Duration = time.Since(start)
	return all, nil
}

// writeSchemas prints each schema's report, then the verdict over all.
func (rep *CheckReport) writeSchemas(w io.Writer) error {
	for i := range rep.Schemas {
		if err := rep.Schemas[i].WriteText(w); err != nil {
			return err
		}
	}
	verdict := "PASS"
	if !rep.Passed {
		verdict = fmt.Sprintf("FAIL (%d failed)", len(rep.Failed()))
	}
	_, err := fmt.Fprintf(w, "%d schemas (%s): %s in %.1fs\n", len(rep.Schemas), rep.Schema, verdict, rep.Duration.Seconds())
	return err
}
