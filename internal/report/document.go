package report

import (
	"encoding/json"
	"html/template"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/store"
)

// document is everything the HTML report of one run shows, computed once.
type document struct {
	Run       *store.Run
	Generated time.Time
	Headline  []store.Figure // the run's figures but its statements'
	Latency   []LatencyRow
	// Statements are a script run's per-statement mean latencies (pgbench -r).
	Statements []StatementRow
	Main       []*timeChart // throughput, latency, errors
	Sections   []section    // collector charts
	LongRun    *LongRun     // per-hour drift panels; nil for runs under LongRunPanelsFrom
	Markers    []marker
	// EventSummary counts Markers by kind; FoldEvents hides their table
	// behind it when there are more than manyEvents.
	EventSummary string
	FoldEvents   bool
	Spans        []span // outside the measured interval
	X0, X1       float64
	Waits        []waitRow
	WaitChart    template.HTML
	WaitTotal    int64
	Changed      []collect.Setting
	Facts        map[string][]collect.Fact // by scope
	Cost         *collect.Cost
	IO           *ioPicture  // nil without collector samples
	Data         template.JS // chart data for the cursor and tooltips
}

// waitRow is one line of the wait-event profile.
type waitRow struct {
	Type, Event string
	Samples     int64
	Share       float64 // percent of all samples
}

// renderedChart pairs a chart with its SVG for the template.
type renderedChart struct {
	*timeChart
	SVG template.HTML
}

func newDocument(r *store.Run, now time.Time) *document {
	d := &document{Run: r, Generated: now, Latency: latencyRows(r), Facts: map[string][]collect.Fact{}}
	d.Headline, d.Statements = splitStatements(r.Headline)
	d.Main = throughputCharts(r)
	d.Sections = collectorCharts(r.Samples, r.StartedAt)
	d.IO = newIOPicture(r.Samples, r.MeasureStart, r.MeasureEnd)
	if g := growthCharts(r.StartedAt, r.Samples); len(g) > 0 {
		d.Sections = append(d.Sections, section{Title: "Growth", Charts: g})
	}
	d.LongRun = longRunView(r)
	all := append([]*timeChart(nil), d.Main...)
	if d.LongRun != nil {
		all = append(all, d.LongRun.charts...)
	}
	for _, s := range d.Sections {
		all = append(all, s.Charts...)
	}
	d.X0, d.X1 = axisRange(all, r.Duration().Seconds())
	if !r.MeasureStart.IsZero() && r.MeasureStart.After(r.StartedAt) {
		d.Spans = append(d.Spans, span{From: d.X0, To: r.MeasureStart.Sub(r.StartedAt).Seconds(), Label: "ramp-up"})
	}
	if !r.MeasureEnd.IsZero() && (r.EndedAt.IsZero() || r.MeasureEnd.Before(r.EndedAt)) {
		d.Spans = append(d.Spans, span{From: r.MeasureEnd.Sub(r.StartedAt).Seconds(), To: d.X1, Label: "after"})
	}
	if s := r.Samples; s != nil {
		for _, e := range s.Events {
			d.Markers = append(d.Markers, marker{X: e.At.Sub(r.StartedAt).Seconds(), Kind: e.Kind, Detail: e.Detail})
		}
		for _, w := range s.Waits {
			d.WaitTotal += w.Samples
		}
		var bars []barRow
		for i, w := range s.Waits {
			row := waitRow{Type: w.Type, Event: w.Event, Samples: w.Samples, Share: 100 * float64(w.Samples) / float64(max(d.WaitTotal, 1))}
			d.Waits = append(d.Waits, row)
			if i < 15 {
				bars = append(bars, barRow{Label: w.Type + ": " + w.Event, Value: row.Share, Text: strconv.FormatFloat(row.Share, 'f', 1, 64) + "%", Color: waitColor(w.Type)})
			}
		}
		if len(bars) > 0 {
			d.WaitChart = svgBars("waits", bars)
		}
		d.Changed = changedSettings(s.Settings)
		for _, f := range s.Facts {
			d.Facts[f.Scope] = append(d.Facts[f.Scope], f)
		}
		if s.Cost.Ticks > 0 {
			c := s.Cost
			d.Cost = &c
		}
	}
	if len(d.Markers) > 0 {
		d.EventSummary = eventSummary(d.Markers, r.Duration().Seconds())
		d.FoldEvents = len(d.Markers) > manyEvents
	}
	d.Data = chartData(all, d.X0, d.X1)
	return d
}

// Charts renders the main charts for the template.
func (d *document) render(cs []*timeChart) []renderedChart {
	out := make([]renderedChart, len(cs))
	for i, c := range cs {
		out[i] = renderedChart{timeChart: c, SVG: svgTimeChart(c, d.X0, d.X1, d.Markers, d.Spans)}
	}
	return out
}

// changedSettings are the settings someone changed from PostgreSQL's
// defaults, plus any unsafe value however it got there; unsafe ones first.
func changedSettings(all []collect.Setting) []collect.Setting {
	var out []collect.Setting
	for _, s := range all {
		if s.Changed() || unsafeRisk(s.Risk) {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		ui, uj := unsafeRisk(out[i].Risk), unsafeRisk(out[j].Risk)
		if ui != uj {
			return ui
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func unsafeRisk(r string) bool {
	return r == "can-lose-data-on-crash" || r == "can-corrupt-on-crash"
}

// waitColor gives each wait-event class its colour; CPU is the good one.
func waitColor(typ string) string {
	switch typ {
	case "CPU":
		return "#009E73"
	case "LWLock":
		return "#D55E00"
	case "Lock":
		return "#CC0000"
	case "IO":
		return "#0072B2"
	case "IPC":
		return "#CC79A7"
	case "Client":
		return "#999999"
	}
	return "#E69F00"
}

// chartData is the JSON the inline script reads for the cursor read-out:
// every line of every time chart, thinned like the SVG, values rounded.
func chartData(charts []*timeChart, x0, x1 float64) template.JS {
	type jl struct {
		Name  string    `json:"n"`
		Color string    `json:"c"`
		X     []float64 `json:"x"`
		Y     []float64 `json:"y"`
		Lo    []float64 `json:"lo,omitempty"` // a thinned line's bucket minimum
		Hi    []float64 `json:"hi,omitempty"` // and maximum
	}
	type jc struct {
		Title string `json:"t"`
		Unit  string `json:"u"`
		Lines []jl   `json:"l"`
	}
	out := struct {
		X0     float64       `json:"x0"`
		X1     float64       `json:"x1"`
		Charts map[string]jc `json:"charts"`
	}{X0: x0, X1: x1, Charts: map[string]jc{}}
	for _, c := range charts {
		j := jc{Title: c.Title, Unit: c.Unit}
		for _, l := range c.Lines {
			bk := bucketize(l.X, l.Y, maxPointsPerLine)
			out := jl{Name: l.Name, Color: l.Color, X: make([]float64, len(bk.X)), Y: make([]float64, len(bk.X))}
			if bk.Thinned {
				out.Lo, out.Hi = make([]float64, len(bk.X)), make([]float64, len(bk.X))
			}
			for i := range bk.X {
				out.X[i], out.Y[i] = round(bk.X[i], 2), sig(bk.Mean[i], 4)
				if bk.Thinned {
					out.Lo[i], out.Hi[i] = sig(bk.Min[i], 4), sig(bk.Max[i], 4)
				}
			}
			j.Lines = append(j.Lines, out)
		}
		out.Charts[c.ID] = j
	}
	b, err := json.Marshal(out) // escapes <, > and & so it is safe inside <script>
	if err != nil {
		return "{}"
	}
	return template.JS(b)
}

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}

// sig keeps n significant digits.
func sig(v float64, n int) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	mag := math.Floor(math.Log10(math.Abs(v)))
	p := math.Pow(10, float64(n-1)-mag)
	return math.Round(v*p) / p
}
