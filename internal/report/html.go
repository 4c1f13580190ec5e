package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/store"
)

var (
	//go:embed assets/report.html
	reportTemplate string
	//go:embed assets/compare.html
	compareTemplate string
	//go:embed assets/report.css
	reportCSS string
	//go:embed assets/report.js
	reportJS string
)

// HTML writes the self-contained report of one run: every style, script and
// chart is inline, nothing is fetched, so the file opens offline anywhere.
func HTML(w io.Writer, r *store.Run) error {
	d := newDocument(redacted(r), time.Now())
	t, err := template.New("report").Funcs(funcs(d)).Parse(reportTemplate)
	if err != nil {
		return fmt.Errorf("report template: %w", err)
	}
	return t.Execute(w, d)
}

// funcs are the template helpers: formatting, and rendering charts on the
// document's common time axis.
func funcs(d *document) template.FuncMap {
	return template.FuncMap{
		"css":    func() template.CSS { return template.CSS(reportCSS) },
		"js":     func() template.JS { return template.JS(reportJS) },
		"render": func(cs []*timeChart) []renderedChart { return d.render(cs) },
		"num":    formatNum,
		"int":    formatInt[int64],
		"ms":     formatMs,
		"dur":    formatDuration,
		"bytes": func(v any) string {
			switch n := v.(type) {
			case int64:
				return formatBytes(n)
			case float64:
				return formatBytes(n)
			}
			return fmt.Sprint(v)
		},
		"pct":    func(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + "%" },
		"signed": func(f float64) string { return fmt.Sprintf("%+.2f", f) },
		"ratio": func(f float64) string {
			if f == 0 {
				return "–"
			}
			return strconv.FormatFloat(f, 'f', 3, 64)
		},
		"clock": clock,
		"trunc": func(s string, n int) string {
			s = strings.Join(strings.Fields(s), " ")
			if len(s) > n {
				return s[:n] + "…"
			}
			return s
		},
		"hit": func(hit, read int64) string {
			if hit+read == 0 {
				return "–"
			}
			return strconv.FormatFloat(100*float64(hit)/float64(hit+read), 'f', 1, 64)
		},
		"growth": func(before, after int64) string {
			if before == 0 {
				return "–"
			}
			return fmt.Sprintf("%+.1f%%", 100*float64(after-before)/float64(before))
		},
		"bloat": func(p float64) string {
			if p < 0 {
				return "–"
			}
			return strconv.FormatFloat(p, 'f', 1, 64) + "%"
		},
		"unsafe":      unsafeRisk,
		"showSetting": showSetting,
		"fact": func(name, value string) string {
			if strings.HasPrefix(name, "database_size") {
				if n, err := strconv.ParseInt(value, 10, 64); err == nil {
					return formatBytes(n)
				}
			}
			return value
		},
	}
}

// showSetting writes a pg_settings value with its unit made readable:
// 16384 × 8kB is "128MB".
func showSetting(v, unit string) string {
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || unit == "" {
		return v
	}
	mult := map[string]float64{"B": 1, "kB": 1 << 10, "8kB": 8 << 10, "16kB": 16 << 10, "32kB": 32 << 10, "64kB": 64 << 10, "MB": 1 << 20, "16MB": 16 << 20}
	if m, ok := mult[unit]; ok && n >= 0 {
		return formatBytes(int64(n * m))
	}
	return v + " " + unit
}

// formatNum writes a figure with sensible precision: 12,345 / 123.4 / 1.234.
func formatNum(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return formatInt(int64(math.Round(v)))
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a == 0:
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// formatInt writes an integer with thousands separators.
func formatInt[T int | int64](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func formatMs(v float64) string {
	switch {
	case v >= 1000:
		return formatInt(int64(math.Round(v)))
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "–"
	case d < time.Millisecond:
		return strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'f', 0, 64) + " µs"
	case d < time.Second:
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	}
	return d.Round(time.Second).String()
}

// formatBytes writes a size in binary units: 8.0 KiB, 1.5 GiB.
func formatBytes[T int64 | float64](n T) string {
	v := float64(n)
	if v < 1024 {
		return strconv.FormatFloat(v, 'f', 0, 64) + " B"
	}
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		v /= 1024
		if v < 1024 || u == "TiB" {
			return strconv.FormatFloat(v, 'f', 1, 64) + " " + u
		}
	}
	return ""
}
