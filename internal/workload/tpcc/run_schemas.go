package tpcc

import (
	"fmt"
	"github.com/pgoltp/pgoltp/internal/workload"
	"io"
	"sort"
	"text/tabwriter"
	"time"
)

// A run over several schemas (RunOptions.Schemas) drives each as its own
// TPC-C database, all on one clock, and returns their merge: every count and
// rate summed (the schemas share one measured window, so their tpmC add up to
// the merged tpmC), latencies from the merged HDR histograms (exact, never
// averaged percentiles), and each schema's own result in Schemas.

// mergedResult is the result the schemas add up to, before the run: its
// options hold the totals over the schemas (warehouses, terminals,
// connections, delivery workers, rate, --stop-at-txns).
func mergedResult(opts RunOptions, schemas []*schemaRun) *RunResult {
	o := schemas[0].r.opts // resolved: duration, retries, weights
	o.Schema, o.Schemas, o.Seed = "", opts.Schemas, opts.Seed
	o.Warehouses, o.Terminals, o.Conns, o.DeliveryWorkers, o.Rate, o.StopAtTxns = 0, 0, 0, 0, 0, 0
	loaded := 0
	for _, p := range schemas {
		po := p.r.opts
		o.Warehouses += po.Warehouses
		o.Terminals += po.Terminals
		o.Conns += po.Conns
		o.DeliveryWorkers += po.DeliveryWorkers
		o.Rate += po.Rate
		o.StopAtTxns += po.StopAtTxns
		loaded += p.res.LoadedWarehouses
	}
	return &RunResult{Options: o, Params: o.Describe(), Kinds: kindNames(), LoadedWarehouses: loaded}
}

// mergeVerdicts gives the merged result the schemas' own audits and
// departures from the standard, each named by its schema: an audit holds
// over one database (its remote-warehouse share depends on how many
// warehouses that database has), so it is not recomputed over the merge.
func mergeVerdicts(m *RunResult) {
	m.Audits, m.NonCompliant, m.MixCompliant = nil, nil, true
	for _, s := range m.Schemas {
		for _, a := range s.Audits {
			a.Name = s.Options.Schema + ": " + a.Name
			m.Audits = append(m.Audits, a)
		}
		for _, n := range s.NonCompliant {
			m.NonCompliant = append(m.NonCompliant, "schema "+s.Options.Schema+": "+n)
		}
		m.MixCompliant = m.MixCompliant && s.MixCompliant
	}
	m.Compliance = compliance(m.NonCompliant)
}

// mergeErrors adds up the schemas' errors by transaction and SQLSTATE.
func mergeErrors(results []*RunResult) []ErrorCount {
	var out []ErrorCount
	at := map[[2]string]int{}
	for _, r := range results {
		for _, e := range r.Errors {
			k := [2]string{e.Txn, e.SQLState}
			if i, ok := at[k]; ok {
				out[i].Count += e.Count
				continue
			}
			at[k] = len(out)
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Count > out[j].Count })
	return out
}

// schemaHeadline is one figure per schema and measure: tpmC, NOPM, the
// New-Order p90 and p99, and its failed input audits, named "tpmC[tpcc2]".
func (r *RunResult) schemaHeadline() []workload.Figure {
	var out []workload.Figure
	for _, s := range r.Schemas {
		name := s.Options.Schema
		no := s.Txn("new_order")
		out = append(out,
			workload.Figure{Name: schemaFigure("tpmC", name), Value: float64(truncate(s.TpmC)), Unit: "New-Orders/min"},
			workload.Figure{Name: schemaFigure("NOPM", name), Value: s.NOPM, Unit: "committed New-Orders/min"},
			workload.Figure{Name: schemaFigure("New-Order p90", name), Value: ms(no.Latency.P90), Unit: "ms"},
			workload.Figure{Name: schemaFigure("New-Order p99", name), Value: ms(no.Latency.P99), Unit: "ms"},
			workload.Figure{Name: schemaFigure("audits failed", name), Value: float64(s.auditsFailed()), Unit: "audits"})
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func (r *RunResult) auditsFailed() int {
	n := 0
	for _, a := range r.Audits {
		if a.Status == AuditFail {
			n++
		}
	}
	return n
}

// writeSchemas prints a line per schema: what it drove, its tpmC and NOPM,
// its New-Order p90 and p99, its input audits, and its C_RUN.
func (r *RunResult) writeSchemas(w io.Writer) error {
	fmt.Fprintf(w, "%d schemas, each its own TPC-C database; the figures above and below merge them (rates summed, latencies from the merged histograms):\n", len(r.Schemas))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  schema\twarehouses\tterminals\tconns\ttpmC\tNOPM\tNew-Order p90\tp99\taudits\tC_RUN c_last c_id ol_i_id (C_LOAD c_last)")
	for _, s := range r.Schemas {
		no := s.Txn("new_order")
		audits := "PASS"
		if n := s.auditsFailed(); n > 0 {
			audits = fmt.Sprintf("FAIL (%d)", n)
		}
		fmt.Fprintf(tw, "  %s\t%d of %d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%d %d %d (%d)\n", s.Options.Schema,
			s.Options.Warehouses, s.LoadedWarehouses, s.Options.Terminals, s.Options.Conns, truncate(s.TpmC), truncate(s.NOPM),
			lat(no.Latency.P90, no.Count), lat(no.Latency.P99, no.Count), audits,
			s.CRun.CLast, s.CRun.CID, s.CRun.OLIID, s.CLoad.CLast)
	}
	return tw.Flush()
}

// seedsNote says where each schema's seed comes from, for a summary.
func (r *RunResult) seedsNote() string {
	s := "schema seeds drawn from the run's seed:"
	for _, p := range r.Schemas {
		s += fmt.Sprintf(" %s=%d", p.Options.Schema, p.Options.Seed)
	}
	return s
}
