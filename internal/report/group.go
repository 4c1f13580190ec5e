package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/pgoltp/pgoltp/internal/group"
	"github.com/pgoltp/pgoltp/internal/secret"
)

// GroupText writes a group of parts as one result: the summed rate over the
// common window, the merged latency percentiles, one line per part (to see a
// slow driver, a late or dead one), and the group's notes.
func GroupText(w io.Writer, v *group.View) error {
	fmt.Fprintf(w, "group %s: %s, %d parts, %s\n", v.Name, v.Workload, v.Parts, v.Status)
	if !v.Start.IsZero() {
		fmt.Fprintf(w, "agreed start %s (store clock); common measured window %.1fs..%.1fs after it (%.1fs)\n",
			v.Start.UTC().Format("2006-01-02 15:04:05.000"), v.Window.From, v.Window.To, v.Window.Seconds())
	}
	if v.Rate != nil {
		fmt.Fprintf(w, "%s %s %s (sum of the parts over the common window)\n", v.Rate.Name, group.RateText(v.Rate.Value), v.Rate.Unit)
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	if len(v.Latency) > 0 {
		fmt.Fprintln(w, "latency (ms), merged histograms of all parts:")
		fmt.Fprintln(tw, "  TYPE\tCOUNT\tP50\tP90\tP95\tP99\tMAX")
		for _, l := range v.Latency {
			fmt.Fprintf(tw, "  %s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n", l.Type, l.Count, l.P50, l.P90, l.P95, l.P99, l.Max)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(v.Audits) > 0 {
		fmt.Fprintln(w, "input audits over all parts:")
		for _, a := range v.Audits {
			fmt.Fprintf(tw, "  %s\t%s\t%d/%d\t%.3f\t(bounds %.3f..%.3f)\n", a.Status, a.Name, a.Count, a.Of, a.Value, a.Low, a.High)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, "parts:")
	rateName := "RATE"
	if v.Rate != nil {
		rateName = v.Rate.Name
	}
	fmt.Fprintf(tw, "  PART\tRUN\tSTATUS\tSKEW\t%s\tP99 (ms)\tNOTE\n", rateName)
	for _, l := range v.Lines {
		fmt.Fprintf(tw, "  %d/%d\t%s\t%s\t%s\t%s\t%.3f\t%s\n", l.Part, v.Parts, l.RunID, l.Status, group.SkewText(l.Skew), group.RateText(l.Rate), l.P99, l.Note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range v.Notes {
		fmt.Fprintln(w, "- "+n)
	}
	return nil
}

// GroupJSON writes the group view as JSON.
func GroupJSON(w io.Writer, v *group.View) error {
	return secret.WriteJSON(w, v)
}
