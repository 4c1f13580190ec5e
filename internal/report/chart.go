package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// Geometry of a time chart in SVG user units; the SVG scales to the page width.
const (
	chartW, chartH         = 960, 210
	padL, padR, padT, padB = 64, 16, 10, 26
	plotW                  = chartW - padL - padR
	plotH                  = chartH - padT - padB
	// maxPointsPerLine bounds what a line puts in the page (SVG and
	// read-out data): a week at 1 s is 604,800 points, drawn as 1,200
	// buckets with their min/max envelope (downsample.go).
	maxPointsPerLine = 1200
)

// marker is a vertical line on every time chart: a checkpoint, a deadlock.
type marker struct {
	X      float64 `json:"x"`
	Kind   string  `json:"kind"`
	Detail string  `json:"detail"`
}

// span is a stretch of the time axis outside the measured interval (ramp-up,
// drain), shaded so a reader does not mistake it for the result.
type span struct {
	From, To float64
	Label    string
}

// svgTimeChart draws c on the x range [x0, x1] with the run's markers and
// unmeasured spans, as inline SVG. The JavaScript reads the data-* attributes
// to place its cursor.
func svgTimeChart(c *timeChart, x0, x1 float64, markers []marker, spans []span) template.HTML {
	sc := newTimeScale(c, x0, x1)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="tchart" id="chart-%s" data-chart="%s" data-x0="%g" data-x1="%g" data-left="%d" data-width="%d" viewBox="0 0 %d %d" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`,
		c.ID, c.ID, x0, x1, padL, plotW, chartW, chartH, html.EscapeString(c.Title))
	fmt.Fprintf(&b, `<rect class="plot" x="%d" y="%d" width="%d" height="%d"/>`, padL, padT, plotW, plotH)
	sc.writeSpans(&b, spans)
	sc.writeGrid(&b)
	sc.writeMarkers(&b, markers)
	for i, l := range c.Lines {
		bk := bucketize(l.X, l.Y, maxPointsPerLine)
		if env := sc.envelope(bk); env != "" {
			fmt.Fprintf(&b, `<path class="envelope" d="%s" fill="%s"><title>%s: range within each of %d buckets</title></path>`,
				env, l.Color, html.EscapeString(l.Name), len(bk.X))
		}
		dash := ""
		if l.Dashed {
			dash = ` stroke-dasharray="5 3"`
		}
		fmt.Fprintf(&b, `<path class="series" data-series="%d" d="%s" stroke="%s"%s><title>%s</title></path>`, i, sc.line(bk), l.Color, dash, html.EscapeString(l.Name))
		if l.Dots && !bk.Thinned {
			sc.writeDots(&b, l, bk)
		}
	}
	fmt.Fprintf(&b, `<line class="cursor" x1="0" x2="0" y1="%d" y2="%d" visibility="hidden"/>`, padT, padT+plotH)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// timeScale maps a chart's data to SVG units: time x0..x1 across the plot,
// 0..ymax up it.
type timeScale struct {
	x0, x1, ymax, ystep float64
	counts              bool // x is a count (trials), not seconds
}

// newTimeScale fits the y axis to c's largest finite value.
func newTimeScale(c *timeChart, x0, x1 float64) timeScale {
	ymax := 0.0
	for _, l := range c.Lines {
		for _, y := range l.Y {
			if !math.IsNaN(y) && !math.IsInf(y, 0) {
				ymax = math.Max(ymax, y)
			}
		}
	}
	ymax, ystep := niceScale(ymax)
	if c.Unit == "%" && ymax > 100 && ymax <= 150 {
		ymax, ystep = 100, 25 // a share never exceeds the whole
	}
	return timeScale{x0: x0, x1: x1, ymax: ymax, ystep: ystep, counts: c.Counts}
}

// xLabel is how an x value reads: a clock time, or a plain count.
func (sc timeScale) xLabel(x float64) string {
	if sc.counts {
		return trimZeros(x)
	}
	return clock(x)
}

// writeDots marks each point of an unthinned line (a search's trials).
func (sc timeScale) writeDots(b *strings.Builder, l *line, bk bucketed) {
	for j := range bk.X {
		if !math.IsNaN(bk.Mean[j]) && !math.IsInf(bk.Mean[j], 0) {
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s: %s at %s</title></circle>`,
				sc.sx(bk.X[j]), sc.sy(bk.Mean[j]), l.Color, html.EscapeString(l.Name), trimZeros(bk.Mean[j]), trimZeros(bk.X[j]))
		}
	}
}

func (sc timeScale) sx(x float64) float64 { return padL + (x-sc.x0)/(sc.x1-sc.x0)*plotW }
func (sc timeScale) sy(y float64) float64 { return padT + plotH - y/sc.ymax*plotH }

// writeSpans shades the stretches outside the measured interval.
func (sc timeScale) writeSpans(b *strings.Builder, spans []span) {
	for _, sp := range spans {
		from, to := math.Max(sp.From, sc.x0), math.Min(sp.To, sc.x1)
		if to <= from {
			continue
		}
		fmt.Fprintf(b, `<g class="unmeasured"><title>%s: not in the measured interval</title><rect x="%.1f" y="%d" width="%.1f" height="%d"/><text x="%.1f" y="%d">%s</text></g>`,
			html.EscapeString(sp.Label), sc.sx(from), padT, sc.sx(to)-sc.sx(from), plotH, sc.sx(from)+3, padT+plotH-4, html.EscapeString(sp.Label))
	}
}

// writeGrid draws the grid lines with their value and clock ticks.
func (sc timeScale) writeGrid(b *strings.Builder) {
	for y := 0.0; y <= sc.ymax*1.0001; y += sc.ystep {
		py := sc.sy(y)
		fmt.Fprintf(b, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/>`, padL, padL+plotW, py, py)
		fmt.Fprintf(b, `<text class="ytick" x="%d" y="%.1f">%s</text>`, padL-6, py+4, shortNum(y))
	}
	xstep := niceTimeStep((sc.x1 - sc.x0) / 8)
	for x := math.Ceil(sc.x0/xstep) * xstep; x <= sc.x1+1e-9; x += xstep {
		px := sc.sx(x)
		fmt.Fprintf(b, `<line class="xgrid" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/>`, px, px, padT, padT+plotH)
		fmt.Fprintf(b, `<text class="xtick" x="%.1f" y="%d">%s</text>`, px, chartH-8, sc.xLabel(x))
	}
}

// writeMarkers draws the markers within the time range.
func (sc timeScale) writeMarkers(b *strings.Builder, markers []marker) {
	for _, m := range markers {
		if m.X < sc.x0 || m.X > sc.x1 {
			continue
		}
		px := sc.sx(m.X)
		fmt.Fprintf(b, `<g class="marker marker-%s"><title>%s at %s: %s</title><line x1="%.1f" x2="%.1f" y1="%d" y2="%d"/><text x="%.1f" y="%d">%s</text></g>`,
			m.Kind, html.EscapeString(m.Kind), sc.xLabel(m.X), html.EscapeString(m.Detail), px, px, padT, padT+plotH, px+3, padT+10, html.EscapeString(markerLabel(m)))
	}
}

// envelope is the path of a thinned line's min/max envelope: each bucket's
// largest values left to right, then its smallest right to left, closed; a
// gap ends a polygon. "" when the line was not thinned.
func (sc timeScale) envelope(bk bucketed) string {
	if !bk.Thinned {
		return ""
	}
	var env strings.Builder
	from := 0
	for j := 0; j <= len(bk.X); j++ {
		if j < len(bk.X) && !math.IsNaN(bk.Min[j]) {
			continue
		}
		if j-from > 1 {
			fmt.Fprintf(&env, "M%.1f %.1f", sc.sx(bk.X[from]), sc.sy(bk.Max[from]))
			for k := from + 1; k < j; k++ {
				fmt.Fprintf(&env, "L%.1f %.1f", sc.sx(bk.X[k]), sc.sy(bk.Max[k]))
			}
			for k := j - 1; k >= from; k-- {
				fmt.Fprintf(&env, "L%.1f %.1f", sc.sx(bk.X[k]), sc.sy(bk.Min[k]))
			}
			env.WriteString("Z")
		}
		from = j + 1
	}
	return env.String()
}

// line is the path through the buckets' means; a missing value lifts the pen.
func (sc timeScale) line(bk bucketed) string {
	var d strings.Builder
	pen := "M"
	for j := range bk.X {
		if math.IsNaN(bk.Mean[j]) || math.IsInf(bk.Mean[j], 0) {
			pen = "M"
			continue
		}
		fmt.Fprintf(&d, "%s%.1f %.1f", pen, sc.sx(bk.X[j]), sc.sy(bk.Mean[j]))
		pen = "L"
	}
	return d.String()
}

// barRow is one bar of a horizontal bar chart.
type barRow struct {
	Label string
	Value float64
	Text  string // shown after the bar
	Color string
}

// svgBars draws a horizontal bar chart (the wait-event profile).
func svgBars(id string, rows []barRow) template.HTML {
	const rowH, labelW, width = 22, 300, 960
	maxV := 0.0
	for _, r := range rows {
		maxV = math.Max(maxV, r.Value)
	}
	if maxV == 0 {
		maxV = 1
	}
	barW := float64(width - labelW - 90)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="bchart" id="chart-%s" viewBox="0 0 %d %d" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`, id, width, len(rows)*rowH+8, id)
	for i, r := range rows {
		y := i*rowH + 4
		w := r.Value / maxV * barW
		fmt.Fprintf(&b, `<g class="bar"><text class="blabel" x="%d" y="%d">%s</text><rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/><text class="bvalue" x="%.1f" y="%d">%s</text></g>`,
			labelW-8, y+15, html.EscapeString(r.Label), labelW, y+3, math.Max(w, 1), rowH-6, r.Color, float64(labelW)+w+6, y+15, html.EscapeString(r.Text))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func markerLabel(m marker) string {
	switch {
	case m.Kind == "checkpoint":
		return "ckpt"
	case m.Kind == "collector" && strings.HasPrefix(m.Detail, "lost"):
		return "server lost"
	case m.Kind == "collector" && strings.HasPrefix(m.Detail, "reconnected"):
		return "server back"
	}
	return m.Kind
}

// niceScale returns an axis maximum and gridline step for data up to max.
func niceScale(max float64) (top, step float64) {
	if max <= 0 {
		return 1, 0.25
	}
	raw := max * 1.05 / 4
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	return math.Ceil(max*1.05/step) * step, step
}

// niceTimeStep rounds a tick interval up to a clock-friendly number of seconds.
func niceTimeStep(s float64) float64 {
	for _, v := range []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 28800, 86400} {
		if v >= s {
			return v
		}
	}
	return 86400
}

// clock writes seconds since the start as m:ss or h:mm:ss.
func clock(sec float64) string {
	neg := sec < 0
	s := int(math.Round(math.Abs(sec)))
	out := fmt.Sprintf("%d:%02d", s/60, s%60)
	if s >= 3600 {
		out = fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	if neg {
		return "-" + out
	}
	return out
}

// shortNum writes an axis label: 1.5k, 2M, 0.25.
func shortNum(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return trimZeros(v/1e9) + "G"
	case a >= 1e6:
		return trimZeros(v/1e6) + "M"
	case a >= 1e4:
		return trimZeros(v/1e3) + "k"
	}
	return trimZeros(v)
}

func trimZeros(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}
