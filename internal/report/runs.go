package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pgoltp/pgoltp/internal/secret"
	"github.com/pgoltp/pgoltp/internal/store"
)

// RunsText lists stored runs as a table, newest first as given: id, start,
// Runs writes the list of the runs stored in where as text, csv or json.
func Runs(w io.Writer, runs []store.Summary, format, where string) error {
	switch format {
	case "csv":
		return RunsCSV(w, runs)
	case "json":
		if runs == nil {
			runs = []store.Summary{}
		}
		return secret.WriteJSON(w, runs)
	}
	if len(runs) == 0 {
		_, err := fmt.Fprintf(w, "No runs stored in %s yet.\n", where)
		return err
	}
	return RunsText(w, runs)
}

// workload, status, duration, the first two headline figures, title.
func RunsText(w io.Writer, runs []store.Summary) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED (UTC)\tWORKLOAD\tSTATUS\tDURATION\tRESULT\tTITLE")
	for _, r := range runs {
		dur := "–"
		if !r.EndedAt.IsZero() && r.EndedAt.After(r.StartedAt) {
			dur = r.EndedAt.Sub(r.StartedAt).Round(time.Second).String()
		}
		var figs []string
		for i, f := range r.Headline {
			if i == 2 {
				break
			}
			figs = append(figs, strings.TrimSpace(fmt.Sprintf("%s %s %s", f.Name, trimFloat(f.Value), f.Unit)))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.StartedAt.UTC().Format("2006-01-02 15:04:05"), r.Workload,
			r.Status, dur, strings.Join(figs, ", "), r.Title)
	}
	return tw.Flush()
}

// trimFloat prints a figure compactly: 1234.5678 -> 1234.57, 3 -> 3.
func trimFloat(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// RunsCSV writes one row per run with a column per headline figure (the union
// over all runs, in order of first appearance), for a spreadsheet.
func RunsCSV(w io.Writer, runs []store.Summary) error {
	var figures []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, f := range r.Headline {
			col := f.Name
			if f.Unit != "" {
				col += " (" + f.Unit + ")"
			}
			if !seen[col] {
				seen[col] = true
				figures = append(figures, col)
			}
		}
	}
	cw := csv.NewWriter(w)
	_ = cw.Write(append([]string{"id", "started_at", "ended_at", "workload", "status", "title"}, figures...))
	for _, r := range runs {
		vals := map[string]string{}
		for _, f := range r.Headline {
			col := f.Name
			if f.Unit != "" {
				col += " (" + f.Unit + ")"
			}
			vals[col] = strconv.FormatFloat(f.Value, 'f', -1, 64)
		}
		row := []string{r.ID, r.StartedAt.UTC().Format(time.RFC3339), "", r.Workload, string(r.Status), r.Title}
		if !r.EndedAt.IsZero() {
			row[2] = r.EndedAt.UTC().Format(time.RFC3339)
		}
		for _, c := range figures {
			row = append(row, vals[c])
		}
		_ = cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}
