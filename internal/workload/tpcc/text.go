package tpcc

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteText prints what a load did, for people.
func (st LoadStats) WriteText(w io.Writer) {
	if len(st.Schemas) > 0 {
		for _, s := range st.Schemas {
			fmt.Fprintf(w, "schema %s: ", s.Schema)
			s.WriteText(w)
		}
		fmt.Fprintf(w, "%d schemas (%s) of %d warehouses each: %d rows in %.1fs with %d workers in all\n",
			len(st.Schemas), st.Schema, st.Warehouses, st.TotalRows(), st.Total.Seconds(), st.Workers)
		return
	}
	if st.AlreadyLoaded {
		fmt.Fprintf(w, "already loaded: %d warehouses (seed %d) are complete; nothing to do (--force reloads)\n", st.Warehouses, st.Seed)
		return
	}
	if st.Replaced {
		fmt.Fprintln(w, "replaced the earlier (incomplete or forced) load")
	}
	if st.KeptUnits > 0 {
		fmt.Fprintf(w, "resumed the interrupted load: %s\n", st.keptText())
	}
	if st.Part != "" {
		fmt.Fprintf(w, "part %s of %d warehouses: %d rows in %.1fs with %d workers (seed %d)\n",
			st.Part, st.Warehouses, st.TotalRows(), st.Data.Seconds(), st.Workers, st.Seed)
		if !st.Finished {
			fmt.Fprintln(w, "  the last part to finish builds the indexes and marks the load complete")
			return
		}
		fmt.Fprintf(w, "  last part: indexes %.1fs, analyze %.1fs; the load is complete\n", st.Index.Seconds(), st.Analyze.Seconds())
		return
	}
	fmt.Fprintf(w, "loaded %d warehouses, %d rows in %.1fs with %d workers (seed %d, C_LOAD c_last=%d c_id=%d ol_i_id=%d)\n",
		st.Warehouses, st.TotalRows(), st.Total.Seconds(), st.Workers, st.Seed, st.Constants.CLast, st.Constants.CID, st.Constants.OLIID)
	loaded := st.TotalRows() - st.KeptRows
	fmt.Fprintf(w, "  data %.1fs (%.0f rows/s) with each table's indexes built as soon as its data was in; builds after it %.1fs, analyze %.1fs\n",
		st.Data.Seconds(), float64(loaded)/max(st.Data.Seconds(), 1e-9), st.Index.Seconds(), st.Analyze.Seconds())
	if st.TableBytes > 0 {
		share := float64(loaded) / float64(max(st.TotalRows(), 1)) // what this run wrote of the tables
		fmt.Fprintf(w, "  tables %.0f MB: %.0f MB/s over the data phase, %.0f MB/s over the whole load; driver %.1f CPU-s, peak RSS %d MB\n",
			float64(st.TableBytes)/1e6, share*float64(st.TableBytes)/1e6/max(st.Data.Seconds(), 1e-9),
			share*float64(st.TableBytes)/1e6/max(st.Total.Seconds(), 1e-9), st.DriverCPU.Seconds(), st.DriverPeakRSS>>20)
	}
}

// WriteText prints the check's verdicts and the violating rows, for people.
func (rep *CheckReport) WriteText(w io.Writer) error {
	if len(rep.Schemas) > 0 {
		return rep.writeSchemas(w)
	}
	fmt.Fprintf(w, "TPC-C consistency, schema %s, %d warehouses, one snapshot (%s):\n", rep.Schema, rep.Warehouses, freshWord(rep.Fresh))
	for _, r := range rep.Results {
		fmt.Fprintf(w, "  %-4s %-18s %-9s %-70s %8s\n", r.Status, r.Name, r.Clause, r.Title, r.Duration.Round(time.Millisecond))
		if r.Status == StatusSkip {
			fmt.Fprintf(w, "       (%s)\n", r.SkipReason)
		}
		if r.Status != StatusFail {
			continue
		}
		fmt.Fprintf(w, "       %d violating rows; first %d: %s\n", r.Violations, len(r.Rows), strings.Join(r.Columns, ", "))
		for _, row := range r.Rows {
			fmt.Fprintf(w, "         %s\n", strings.Join(row, ", "))
		}
	}
	verdict := "PASS"
	if !rep.Passed {
		verdict = fmt.Sprintf("FAIL (%d failed)", len(rep.Failed()))
	}
	_, err := fmt.Fprintf(w, "%s in %.1fs\n", verdict, rep.Duration.Seconds())
	return err
}

func freshWord(fresh bool) string {
	if fresh {
		return "freshly loaded"
	}
	return "after a run; load-only checks skipped"
}
