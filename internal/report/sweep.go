package report

// The report of a `pgoltp sweep`: its curve with intervals and its knee,
// from the sweep's report kept in the lab.

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"time"

	"github.com/pgoltp/pgoltp/internal/sweep"
)

//go:embed assets/sweep.html
var sweepTemplate string

// sweepDoc is what the sweep template shows.
type sweepDoc struct {
	*sweep.Report
	Charts []*renderedChart
}

// SweepHTML writes a sweep's report.
func SweepHTML(w io.Writer, r *sweep.Report) error {
	fm := funcs(nil)
	fm["ms"] = func(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond)) }
	t, err := template.New("sweep").Funcs(fm).Parse(sweepTemplate)
	if err != nil {
		return fmt.Errorf("sweep template: %w", err)
	}
	return t.Execute(w, &sweepDoc{Report: r, Charts: sweepCharts(r)})
}

// sweepCharts are throughput against the axis (mean and 95% interval) and
// p99 against throughput.
func sweepCharts(r *sweep.Report) []*renderedChart {
	if len(r.Levels) == 0 {
		return nil
	}
	mean := &line{Name: "mean throughput", Color: palette[0], Dots: true}
	lo := &line{Name: "95% interval, low", Color: palette[0], Dashed: true}
	hi := &line{Name: "95% interval, high", Color: palette[0], Dashed: true}
	lat := &line{Name: "p99 (mean over repetitions)", Color: palette[1], Dots: true}
	var maxX, maxTPS float64
	for _, l := range r.Levels {
		x := float64(l.Value)
		mean.X, mean.Y = append(mean.X, x), append(mean.Y, l.TPS)
		lo.X, lo.Y = append(lo.X, x), append(lo.Y, l.TPSLow)
		hi.X, hi.Y = append(hi.X, x), append(hi.Y, l.TPSHi)
		lat.X, lat.Y = append(lat.X, l.TPS), append(lat.Y, l.P99ms)
		maxX, maxTPS = max(maxX, x), max(maxTPS, l.TPS)
	}
	var knee []marker
	if r.Knee > 0 {
		knee = append(knee, marker{X: float64(r.Knee), Kind: "knee", Detail: r.KneeNote})
	}
	tput := &timeChart{ID: "throughput", Title: "Throughput against " + r.Axis, Unit: "tps", Counts: true, Lines: []*line{mean, lo, hi},
		Note: "The marker is the knee: the last value whose gain over the one before is significant."}
	p99 := &timeChart{ID: "latency", Title: "p99 latency against throughput", Unit: "ms (x: tps)", Counts: true, Lines: []*line{lat}}
	return []*renderedChart{
		{timeChart: tput, SVG: svgTimeChart(tput, 0, maxX*1.05, knee, nil)},
		{timeChart: p99, SVG: svgTimeChart(p99, 0, maxTPS*1.05, nil, nil)},
	}
}
