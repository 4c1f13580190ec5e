package crashaudit

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// FailoverTable is a failover plan's outcome: one audit per replication
// level and kill, in the order they ran.
type FailoverTable struct {
	Audits []*FailoverReport `json:"audits"`
}

// Level is the report's replication level as --sync names it.
func (rep *FailoverReport) Level() string {
	switch {
	case !rep.Synchronous:
		return "off"
	case rep.SyncCommit == "":
		return "on"
	}
	return rep.SyncCommit
}

// WriteText writes one row per audit.
func (t *FailoverTable) WriteText(w io.Writer) error {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "level\tkill\tacknowledged\tlost\tin doubt\twithout primary\tcommits/s before\tafter\t")
	for _, r := range t.Audits {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%.0f\t%.0f\t\n", r.Level(), r.Kill, r.Acknowledged, r.Lost, r.InDoubt,
			r.WithoutPrimary.Round(time.Millisecond), r.RateBefore, r.RateAfter)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("lost: acknowledged by the old primary, absent on the promoted standby (counted by id); in doubt: on the new primary, never acknowledged\n")
	for _, r := range t.Audits {
		if !r.Rebuilt {
			b.WriteString("note: the lab could not be put back; run 'pgoltp cluster destroy' and 'cluster up' again\n")
			break
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Failure is the table's failure (exit 1): a loss with synchronous replication.
func (t *FailoverTable) Failure() error {
	var lost int64
	for _, r := range t.Audits {
		if r.Synchronous {
			lost += r.Lost
		}
	}
	if lost > 0 {
		return problem.Failed("%d acknowledged commits lost in failovers with synchronous replication", lost)
	}
	return nil
}
