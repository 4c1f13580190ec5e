package study

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/stats"
)

// Run is one stored run of the workload on one major.
type Run struct {
	Major      int                 `json:"major"`
	Build      string              `json:"build,omitempty"` // a build of 'pgoltp build' (a builds plan)
	Version    string              `json:"version"`
	Repetition int                 `json:"repetition"`
	RunID      string              `json:"run_id"`
	Txns       float64             `json:"transactions"` // committed
	TPS        float64             `json:"tps"`
	P50        float64             `json:"p50_ms"`
	P95        float64             `json:"p95_ms"`
	P99        float64             `json:"p99_ms"`
	Effect     Snapshot            `json:"effect"` // after − before
	Statements []collect.Statement `json:"-"`
	PerSecond  []float64           `json:"-"` // committed transactions in each second: the run's own noise
}

// Figure is one measure of a major: the mean over its repetitions and, with
// two or more, a 95% interval of that mean (Student's t).
type Figure struct {
	Name  string  `json:"name"`
	Unit  string  `json:"unit"`
	Mean  float64 `json:"mean"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	N     int     `json:"n"`
	HasCI bool    `json:"has_interval"`
}

// Major is the summary of one major's runs.
type Major struct {
	Major   int      `json:"major"`
	Build   string   `json:"build,omitempty"`
	Version string   `json:"version"`
	RunIDs  []string `json:"run_ids"`
	Figures []Figure `json:"figures"`
}

// StatementRow is one statement's mean time and share of time on each major.
type StatementRow struct {
	Query  string             `json:"query"`
	MeanMs map[string]float64 `json:"mean_ms"` // by major ("15") or build (Major.Key)
	Calls  map[string]int64   `json:"calls"`
	Share  map[string]float64 `json:"share_pct"`
}

// Comparison is the outcome of a version study.
type Comparison struct {
	Workload     string         `json:"workload"`
	Translations []Translation  `json:"settings"`
	Majors       []Major        `json:"majors"`
	Statements   []StatementRow `json:"top_statements"`
	Verdicts     []Verdict      `json:"verdicts"` // each arm's throughput against the first's
	Runs         []Run          `json:"runs"`
}

// The figures of a comparison, in the order they are shown.
// Each figure's interval is kept within the values the figure can take
// (lo..hi): with two runs Student's t is wide, and "HOT updates 99.6%
// [97.6, 101.6]" or a negative count of dead tuples reads as a bug. Growth
// can be negative (a table truncated by vacuum), so it has no bounds.
var figureNames = []struct {
	name, unit string
	lo, hi     float64
}{
	{"throughput", "txn/s", 0, inf},
	{"latency p50", "ms", 0, inf},
	{"latency p95", "ms", 0, inf},
	{"latency p99", "ms", 0, inf},
	{"database growth", "MB per 1M txn", -inf, inf},
	{"index growth", "MB per 1M txn", -inf, inf},
	{"WAL per transaction", "bytes", 0, inf},
	{"HOT updates", "% of updates", 0, 100},
	{"dead tuples after", "tuples", 0, inf},
	{"autovacuum runs", "runs", 0, inf},
	{"checkpoints", "count", 0, inf},
}

var inf = math.Inf(1)

// figures are the measures of one run, in figureNames order.
func (r Run) figures() []float64 {
	perMTxn := func(b float64) float64 {
		if r.Txns <= 0 {
			return math.NaN()
		}
		return b / 1e6 / r.Txns * 1e6
	}
	walPerTxn, hot := math.NaN(), math.NaN()
	if r.Txns > 0 {
		walPerTxn = r.Effect.WALBytes / r.Txns
	}
	if r.Effect.Updates > 0 {
		hot = 100 * r.Effect.HotUpdates / r.Effect.Updates
	}
	return []float64{r.TPS, r.P50, r.P95, r.P99, perMTxn(r.Effect.DBBytes), perMTxn(r.Effect.IndexBytes), walPerTxn, hot,
		r.Effect.DeadTuples, r.Effect.Autovacuums, r.Effect.Checkpoints}
}

// topPerMajor is how many statements of each major the comparison shows.
const topPerMajor = 5

// key is what runs are summarised by: the build, else the major.
func (r Run) key() string {
	if r.Build != "" {
		return r.Build
	}
	return strconv.Itoa(r.Major)
}

// Key is the summary's key in StatementRow's maps.
func (m Major) Key() string { return Run{Major: m.Major, Build: m.Build}.key() }

// Label names the summary in the comparison's text: "PG 15.18", "build clang".
func (m Major) Label() string {
	if m.Build != "" {
		return "build " + m.Build
	}
	return "PG " + m.Version
}

// short names the summary in the runs and statements lines: "PG 15",
// "build clang".
func (m Major) short() string {
	if m.Build != "" {
		return "build " + m.Build
	}
	return fmt.Sprintf("PG %d", m.Major)
}

// Compare summarises runs per major (per build), in the order they first
// appear.
func Compare(workload string, translations []Translation, runs []Run) Comparison {
	c := Comparison{Workload: workload, Translations: translations, Runs: runs}
	byKey := map[string][]Run{}
	var order []string
	for _, r := range runs {
		if _, ok := byKey[r.key()]; !ok {
			order = append(order, r.key())
		}
		byKey[r.key()] = append(byKey[r.key()], r)
	}
	rows := map[string]*StatementRow{}
	var rowOrder []string
	for _, m := range order {
		rs := byKey[m]
		mj := Major{Major: rs[0].Major, Build: rs[0].Build, Version: rs[0].Version}
		values := make([][]float64, len(figureNames))
		stmts := map[string]*collect.Statement{}
		var totalMs float64
		for _, r := range rs {
			mj.RunIDs = append(mj.RunIDs, r.RunID)
			for i, v := range r.figures() {
				if !math.IsNaN(v) {
					values[i] = append(values[i], v)
				}
			}
			for _, s := range r.Statements {
				key := normalizeQuery(s.Query)
				if stmts[key] == nil {
					stmts[key] = &collect.Statement{Query: key}
				}
				stmts[key].Calls += s.Calls
				stmts[key].TotalMs += s.TotalMs
				totalMs += s.TotalMs
			}
		}
		for i, f := range figureNames {
			mj.Figures = append(mj.Figures, summarize(f.name, f.unit, values[i], f.lo, f.hi))
		}
		c.Majors = append(c.Majors, mj)
		top := make([]*collect.Statement, 0, len(stmts))
		for _, s := range stmts {
			top = append(top, s)
		}
		sort.Slice(top, func(i, j int) bool {
			if top[i].TotalMs != top[j].TotalMs {
				return top[i].TotalMs > top[j].TotalMs
			}
			return top[i].Query < top[j].Query
		})
		for i, s := range top {
			row := rows[s.Query]
			if row == nil {
				if i >= topPerMajor {
					continue
				}
				row = &StatementRow{Query: s.Query, MeanMs: map[string]float64{}, Calls: map[string]int64{}, Share: map[string]float64{}}
				rows[s.Query] = row
				rowOrder = append(rowOrder, s.Query)
			}
			row.Calls[m] = s.Calls
			if s.Calls > 0 {
				row.MeanMs[m] = s.TotalMs / float64(s.Calls)
			}
			if totalMs > 0 {
				row.Share[m] = 100 * s.TotalMs / totalMs
			}
		}
	}
	for _, q := range rowOrder {
		c.Statements = append(c.Statements, *rows[q])
	}
	c.Verdicts = verdicts(c.Majors, byKey)
	return c
}

// summarize is the mean of values with a 95% interval of the mean, kept
// within lo..hi.
func summarize(name, unit string, values []float64, lo, hi float64) Figure {
	f := Figure{Name: name, Unit: unit, N: len(values)}
	if len(values) == 0 {
		return f
	}
	var sum float64
	for _, v := range values {
		sum += v
	}
	f.Mean = sum / float64(len(values))
	f.Low, f.High = f.Mean, f.Mean
	if len(values) < 2 {
		return f
	}
	var ss float64
	for _, v := range values {
		ss += (v - f.Mean) * (v - f.Mean)
	}
	se := math.Sqrt(ss/float64(len(values)-1)) / math.Sqrt(float64(len(values)))
	half := stats.StudentQuantile(0.975, float64(len(values)-1)) * se
	f.Low, f.High, f.HasCI = math.Max(lo, f.Mean-half), math.Min(hi, f.Mean+half), true
	return f
}

// normalizeQuery folds whitespace so the same statement matches across majors.
func normalizeQuery(q string) string { return strings.Join(strings.Fields(q), " ") }

// WriteText writes the comparison as aligned text: settings, one column per
// major, then the top statements side by side.
func (c Comparison) WriteText(w io.Writer) {
	what := "versions"
	if len(c.Majors) > 0 && c.Majors[0].Build != "" {
		what = "builds"
	}
	fmt.Fprintf(w, "PostgreSQL %s compared under %s\n", what, c.Workload)
	if len(c.Translations) > 0 {
		fmt.Fprintln(w, "\nsettings")
		for _, t := range c.Translations {
			applied := t.Name + "=" + t.Value
			if t.Name == "" {
				applied = "—"
			}
			note := ""
			if t.Note != "" {
				note = "  (" + t.Note + ")"
			}
			fmt.Fprintf(w, "  PG %-3d %-32s -> %s%s\n", t.Major, t.Given, applied, note)
		}
	}
	fmt.Fprintf(w, "\n%-22s %-14s", "", "")
	for _, m := range c.Majors {
		fmt.Fprintf(w, " %24s", fmt.Sprintf("%s (%d runs)", m.Label(), len(m.RunIDs)))
	}
	fmt.Fprintln(w)
	for i, f := range figureNames {
		fmt.Fprintf(w, "%-22s %-14s", f.name, f.unit)
		for _, m := range c.Majors {
			fmt.Fprintf(w, " %24s", m.Figures[i].String())
		}
		fmt.Fprintln(w)
	}
	writeVerdicts(w, c.Verdicts)
	fmt.Fprintln(w, "\nruns")
	width := 0
	for _, m := range c.Majors {
		width = max(width, len(m.short()))
	}
	for _, m := range c.Majors {
		fmt.Fprintf(w, "  %-*s %s\n", width, m.short(), strings.Join(m.RunIDs, " "))
	}
	if len(c.Statements) > 0 {
		fmt.Fprintln(w, "\ntop statements: mean ms per call (share of statement time)")
		for _, s := range c.Statements {
			fmt.Fprintf(w, "  %s\n   ", truncate(s.Query, 100))
			for _, m := range c.Majors {
				if _, ok := s.Calls[m.Key()]; !ok {
					fmt.Fprintf(w, "  %s: —", m.short())
					continue
				}
				fmt.Fprintf(w, "  %s: %.3f (%.0f%%)", m.short(), s.MeanMs[m.Key()], s.Share[m.Key()])
			}
			fmt.Fprintln(w)
		}
	}
}

// String is the mean with its interval, or "—" when there is nothing.
func (f Figure) String() string {
	if f.N == 0 {
		return "—"
	}
	if !f.HasCI {
		return num(f.Mean)
	}
	return fmt.Sprintf("%s [%s, %s]", num(f.Mean), num(f.Low), num(f.High))
}

func num(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1000:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
