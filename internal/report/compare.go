package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/secret"
	"github.com/pgoltp/pgoltp/internal/store"
)

// Comparison is several runs side by side: every headline figure and
// latency percentile with its change against the first run (the baseline),
// and only the parameters, settings and system facts that differ.
type Comparison struct {
	Runs     []RunHead    `json:"runs"`
	Figures  []FigureRow  `json:"figures"`
	Params   []DiffRow    `json:"params_that_differ"`
	Settings []DiffRow    `json:"settings_that_differ"`
	System   []DiffRow    `json:"system_that_differs"`
	runs     []*store.Run // for the HTML chart
}

// RunHead names one compared run.
type RunHead struct {
	ID        string       `json:"id"`
	Title     string       `json:"title"`
	Workload  string       `json:"workload"`
	Status    store.Status `json:"status"`
	StartedAt time.Time    `json:"started_at"`
	Seconds   float64      `json:"duration_s"`
}

// FigureRow is one figure across runs. Values[i] is NaN when run i lacks it
// (JSON: null); Change[i] is the change from the baseline in percent.
type FigureRow struct {
	Name          string     `json:"name"`
	Unit          string     `json:"unit"`
	LowerIsBetter bool       `json:"lower_is_better"`
	Values        []*float64 `json:"values"`
	Change        []*float64 `json:"change_pct"`
}

// DiffRow is one parameter, setting or fact whose value differs between runs.
type DiffRow struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
	Risks  []string `json:"risks,omitempty"` // settings only: the risk label of each value
}

// Compare builds the comparison of runs; the first is the baseline.
func Compare(runs []*store.Run) *Comparison {
	shown := make([]*store.Run, len(runs))
	for i, r := range runs {
		shown[i] = redacted(r)
	}
	runs = shown
	c := &Comparison{runs: runs}
	for _, r := range runs {
		c.Runs = append(c.Runs, RunHead{ID: r.ID, Title: r.Title, Workload: r.Workload, Status: r.Status, StartedAt: r.StartedAt, Seconds: r.Duration().Seconds()})
	}
	// Figures: headline first, then latency percentiles per type.
	type key struct{ name, unit string }
	var order []key
	vals := map[key][]*float64{}
	put := func(i int, name, unit string, v float64) {
		k := key{name, unit}
		if vals[k] == nil {
			vals[k] = make([]*float64, len(runs))
			order = append(order, k)
		}
		vals[k][i] = &v
	}
	for i, r := range runs {
		for _, f := range r.Headline {
			put(i, f.Name, f.Unit, f.Value)
		}
	}
	for i, r := range runs {
		for _, l := range latencyRows(r) {
			put(i, l.Type+" p50", "ms", l.P50)
			put(i, l.Type+" p95", "ms", l.P95)
			put(i, l.Type+" p99", "ms", l.P99)
			put(i, l.Type+" max", "ms", l.Max)
		}
	}
	for _, k := range order {
		row := FigureRow{Name: k.name, Unit: k.unit, Values: vals[k], Change: make([]*float64, len(runs)),
			LowerIsBetter: lowerIsBetter(k.name, k.unit)}
		if base := vals[k][0]; base != nil && *base != 0 {
			for i := 1; i < len(runs); i++ {
				if v := vals[k][i]; v != nil {
					ch := 100 * (*v - *base) / math.Abs(*base)
					row.Change[i] = &ch
				}
			}
		}
		c.Figures = append(c.Figures, row)
	}
	c.Params = differing(runs, func(r *store.Run) []collect.Fact {
		var out []collect.Fact
		for _, kv := range r.Params {
			out = append(out, collect.Fact{Name: kv.Name, Value: kv.Value})
		}
		return out
	})
	c.System = differing(runs, func(r *store.Run) []collect.Fact {
		if r.Samples == nil {
			return nil
		}
		var out []collect.Fact
		for _, f := range r.Samples.Facts {
			if f.Scope == "os" || f.Name == "version" {
				out = append(out, collect.Fact{Name: f.Name, Value: f.Value})
			}
		}
		return out
	})
	c.Settings = settingDiffs(runs)
	return c
}

// differing lists the names whose values are not the same in every run.
func differing(runs []*store.Run, get func(*store.Run) []collect.Fact) []DiffRow {
	var names []string
	vals := map[string][]string{}
	for i, r := range runs {
		for _, f := range get(r) {
			if vals[f.Name] == nil {
				vals[f.Name] = make([]string, len(runs))
				names = append(names, f.Name)
			}
			vals[f.Name][i] = f.Value
		}
	}
	var out []DiffRow
	for _, n := range names {
		if !allSame(vals[n]) {
			out = append(out, DiffRow{Name: n, Values: vals[n]})
		}
	}
	return out
}

// settingDiffs lists the server settings whose values differ between runs,
// with the risk label of each value; unsafe ones first.
func settingDiffs(runs []*store.Run) []DiffRow {
	type cell struct{ value, risk string }
	cells := map[string][]cell{}
	for i, r := range runs {
		if r.Samples == nil {
			continue
		}
		for _, s := range r.Samples.Settings {
			if cells[s.Name] == nil {
				cells[s.Name] = make([]cell, len(runs))
			}
			risk := s.Risk
			if risk == "unknown" {
				risk = ""
			}
			cells[s.Name][i] = cell{showSetting(s.Setting, s.Unit), risk}
		}
	}
	var out []DiffRow
	for name, cs := range cells {
		vals, risks := make([]string, len(cs)), make([]string, len(cs))
		for i, c := range cs {
			vals[i], risks[i] = c.value, c.risk
		}
		if !allSame(vals) {
			out = append(out, DiffRow{Name: name, Values: vals, Risks: risks})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		ui, uj := anyUnsafe(out[i].Risks), anyUnsafe(out[j].Risks)
		if ui != uj {
			return ui
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func anyUnsafe(risks []string) bool {
	for _, r := range risks {
		if unsafeRisk(r) {
			return true
		}
	}
	return false
}

func allSame(v []string) bool {
	for _, x := range v[1:] {
		if x != v[0] {
			return false
		}
	}
	return true
}

// lowerIsBetter says which way a figure improves: latencies and times go
// down, rates and counts go up.
func lowerIsBetter(name, unit string) bool {
	n := strings.ToLower(name)
	return unit == "ms" || unit == "s" || unit == "µs" || strings.Contains(n, "latency") || strings.Contains(n, "error") || strings.Contains(n, "abort")
}

// Write writes the comparison in format: text, html or json.
func (c *Comparison) Write(w io.Writer, format string) error {
	switch format {
	case "html":
		return c.HTML(w)
	case "json":
		return secret.WriteJSON(w, c)
	}
	return c.Text(w)
}

// Text writes the comparison as aligned plain text for a terminal.
func (c *Comparison) Text(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	head := []string{"run"}
	for i, r := range c.Runs {
		label := r.ID
		if i == 0 {
			label += " (baseline)"
		}
		head = append(head, label)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	titles := []string{""}
	for _, r := range c.Runs {
		titles = append(titles, r.Title)
	}
	fmt.Fprintln(tw, strings.Join(titles, "\t"))
	fmt.Fprintln(tw)
	for _, f := range c.Figures {
		cells := []string{f.Name}
		for i, v := range f.Values {
			s := "–"
			if v != nil {
				s = strings.TrimSpace(formatNum(*v) + " " + f.Unit)
			}
			if ch := f.Change[i]; ch != nil {
				s += fmt.Sprintf(" (%+.1f%%)", *ch)
			}
			cells = append(cells, s)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	section := func(title string, rows []DiffRow) {
		if len(rows) == 0 {
			return
		}
		fmt.Fprintln(tw)
		fmt.Fprintln(tw, title+":")
		for _, d := range rows {
			cells := []string{"  " + d.Name}
			for i, v := range d.Values {
				if v == "" {
					v = "–"
				}
				if i < len(d.Risks) && unsafeRisk(d.Risks[i]) {
					v += " [UNSAFE: " + d.Risks[i] + "]"
				}
				cells = append(cells, v)
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
	}
	section("Parameters that differ", c.Params)
	section("Settings that differ", c.Settings)
	section("System differences", c.System)
	if len(c.Params)+len(c.Settings)+len(c.System) == 0 {
		fmt.Fprintln(tw)
		fmt.Fprintln(tw, "Parameters, settings and system are the same in every run.")
	}
	return tw.Flush()
}

// HTML writes the comparison as a self-contained page, with the runs'
// total throughput overlaid on one time axis.
func (c *Comparison) HTML(w io.Writer) error {
	chart := &timeChart{ID: "compare-throughput", Title: "Throughput, all transaction types", Unit: "txn/s"}
	for i, r := range c.runs {
		per := map[int]float64{}
		for _, iv := range r.Series {
			per[iv.Second] += iv.Rate()
		}
		secs := make([]int, 0, len(per))
		for s := range per {
			secs = append(secs, s)
		}
		sort.Ints(secs)
		l := &line{Name: r.ID, Color: palette[i%len(palette)]}
		for _, s := range secs {
			l.X, l.Y = append(l.X, float64(s)), append(l.Y, per[s])
		}
		if len(l.X) > 0 {
			chart.Lines = append(chart.Lines, l)
		}
	}
	maxDur := 0.0
	for _, r := range c.runs {
		maxDur = math.Max(maxDur, r.Duration().Seconds())
	}
	x0, x1 := axisRange([]*timeChart{chart}, maxDur)
	d := &compareDoc{Comparison: c, Generated: time.Now(), Data: chartData([]*timeChart{chart}, x0, x1)}
	if len(chart.Lines) > 0 {
		d.Chart = &renderedChart{timeChart: chart, SVG: svgTimeChart(chart, x0, x1, nil, nil)}
	}
	fm := funcs(nil)
	fm["diffArgs"] = func(title, id string, rows []DiffRow, runs []RunHead) map[string]any {
		return map[string]any{"Title": title, "ID": id, "Rows": rows, "Runs": runs}
	}
	fm["num"] = func(v any) string {
		if p, ok := v.(*float64); ok && p != nil {
			return formatNum(*p)
		}
		if f, ok := v.(float64); ok {
			return formatNum(f)
		}
		return "–"
	}
	t, err := template.New("compare").Funcs(fm).Parse(compareTemplate)
	if err != nil {
		return fmt.Errorf("compare template: %w", err)
	}
	return t.Execute(w, d)
}

type compareDoc struct {
	*Comparison
	Generated time.Time
	Chart     *renderedChart
	Data      template.JS
}

// ChangeText is the i-th run's change against the baseline, e.g. "+8.0%".
func (f FigureRow) ChangeText(i int) string {
	if f.Change[i] == nil {
		return ""
	}
	return fmt.Sprintf("%+.1f%%", *f.Change[i])
}

// ChangeClass says whether the i-th run's change is better or worse than the
// baseline (changes under 1% are noise either way).
func (f FigureRow) ChangeClass(i int) string {
	ch := f.Change[i]
	if ch == nil || math.Abs(*ch) < 1 {
		return "same"
	}
	if (*ch < 0) == f.LowerIsBetter {
		return "better"
	}
	return "worse"
}
