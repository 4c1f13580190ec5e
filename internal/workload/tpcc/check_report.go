package tpcc

import (
	"io"

	"github.com/pgoltp/pgoltp/internal/workload"
)

// CheckReportOf is the TPC-C report behind a check (nil: not checked).
func CheckReportOf(c *workload.Check) *CheckReport {
	if c == nil {
		return nil
	}
	return c.Detail.(*CheckReport)
}

// WriteWithCheck prints the run's summary and the check after it, if any.
func (r *RunResult) WriteWithCheck(w io.Writer, rep *CheckReport) error {
	if err := r.WriteSummary(w); err != nil {
		return err
	}
	if rep != nil {
		return rep.WriteText(w)
	}
	return nil
}
