package group

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Params are the parameters the recorder stores with a part's run: the
// group, and how its headline rate is counted, so that the view can sum it.
func Params(name string, r workload.Rate) []store.KV {
	kv := []store.KV{{Name: "group", Value: name}}
	if r.Type != "" && r.Per > 0 {
		kv = append(kv, store.KV{Name: "group_rate", Value: strings.Join([]string{r.Figure, r.Type, r.Unit, r.Per.String()}, "|")})
	}
	return kv
}

func parseRate(s string) (workload.Rate, bool) {
	f := strings.Split(s, "|")
	if len(f) != 4 {
		return workload.Rate{}, false
	}
	per, err := time.ParseDuration(f[3])
	if err != nil || per <= 0 {
		return workload.Rate{}, false
	}
	return workload.Rate{Figure: f[0], Type: f[1], Unit: f[2], Per: per}, true
}

// View is a group as one result.
type View struct {
	Name     string    `json:"group"`
	Workload string    `json:"workload"`
	Parts    int       `json:"parts"`
	Status   string    `json:"status"` // complete, partial (a part died, was late, failed or was interrupted), running
	Start    time.Time `json:"start"`  // the agreed start, on the store's clock (zero: not all parts came)
	// Window is the parts' common measured window, in seconds after Start:
	// from the latest start of measurement to the earliest end.
	Window Window `json:"window"`
	// Rate is the headline throughput (tpmC, TPS) summed over the parts,
	// each counted over the common window; nil when no part has data.
	Rate *store.Figure `json:"rate,omitempty"`
	// Latency holds each transaction type's percentiles from the parts'
	// histograms merged exactly (HDR Merge; never averaged percentiles).
	Latency []Latency  `json:"latency"`
	Lines   []PartLine `json:"part_lines"`
	// Audits are the parts' input audits summed over all parts and judged
	// again (workload.Tally).
	Audits []Audit  `json:"audits"`
	Notes  []string `json:"notes"`

	rate      workload.Rate
	histogram map[string]*hdrhistogram.Histogram
}

// Window is a span of seconds after the group's start.
type Window struct {
	From float64 `json:"from_s"`
	To   float64 `json:"to_s"`
}

// Seconds is the window's length.
func (w Window) Seconds() float64 { return max(0, w.To-w.From) }

// Latency is one type's merged percentiles, in milliseconds.
type Latency struct {
	Type  string  `json:"type"`
	Count int64   `json:"count"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P95   float64 `json:"p95_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

// Audit is one input audit over all parts.
type Audit struct {
	Name   string  `json:"name"`
	Count  int64   `json:"count"`
	Of     int64   `json:"of"`
	Value  float64 `json:"value"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	Status string  `json:"status"`
}

// PartLine is one part, to see a slow driver or a missing one.
type PartLine struct {
	Part   int           `json:"part"`
	RunID  string        `json:"run_id,omitempty"`
	Status string        `json:"status"`
	Skew   time.Duration `json:"skew_ns"`
	// Rate is the part's share of View.Rate (over the common window); P99 the
	// p99 of the rate's transaction type in its own histogram (ms).
	Rate float64 `json:"rate"`
	P99  float64 `json:"p99_ms"`
	Note string  `json:"note,omitempty"`
}

// Histogram returns the merged histogram of a transaction type (nil if none).
func (v *View) Histogram(txnType string) *hdrhistogram.Histogram { return v.histogram[txnType] }

// Load reads group name from the store and merges its parts' stored runs.
// It returns store.ErrNotFound when there is no such group.
func Load(ctx context.Context, st *store.Store, name string) (*View, error) {
	g, parts, err := st.Group(ctx, name)
	if err != nil {
		return nil, err
	}
	now, _, _, err := st.ServerClock(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the clock of %s: %w", st.Where(), err)
	}
	runs := map[int]*store.Run{}
	for _, p := range parts {
		if p.RunID == "" || p.Status == StatusLate || p.Status == StatusGaveUp {
			continue
		}
		r, err := st.Load(ctx, p.RunID)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		runs[p.Part] = r
	}
	return merge(g, parts, runs, now), nil
}

// hasData says a part's run stored a measurement.
func hasData(r *store.Run) bool { return r != nil && len(r.Latency) > 0 }

// merge builds the view from the group, its parts and their stored runs
// (by part number); now is the store's clock.
func merge(g store.Group, parts []store.GroupPart, runs map[int]*store.Run, now time.Time) *View {
	v := &View{Name: g.Name, Workload: g.Workload, Parts: g.Parts, Start: g.Start, histogram: map[string]*hdrhistogram.Histogram{}}
	v.commonWindow(g, parts, runs)
	complete, running := 0, false
	for _, p := range parts {
		line := PartLine{Part: p.Part, RunID: p.RunID, Status: Effective(p, now), Skew: p.Skew, Note: p.Note}
		r := runs[p.Part]
		if r != nil && line.Status != StatusDead && r.Status != store.Running && r.Status != store.Incomplete {
			line.Status = string(r.Status)
		}
		switch line.Status {
		case string(store.Complete):
			complete++
		case StatusRunning, StatusWaiting:
			running = true
		}
		if hasData(r) {
			v.mergeLatency(r)
			if v.rate.Type != "" {
				line.Rate = rateOver(r, p.Skew, g.Start, v.Window, v.rate)
				if snap := r.Latency[v.rate.Type]; snap != nil {
					line.P99 = ms(hdrhistogram.Import(snap).ValueAtQuantile(99))
				}
			}
			v.Notes = append(v.Notes, partNotes(p.Part, g.Parts, r)...)
		}
		v.Lines = append(v.Lines, line)
	}
	v.Audits = mergeTallies(parts, runs)
	if len(v.Audits) > 0 {
		vs := make([]workload.Verdict, len(v.Audits))
		for i, a := range v.Audits {
			vs[i] = workload.Verdict{Status: a.Status, What: fmt.Sprintf("%s = %.3f (bounds %.3f..%.3f)", a.Name, a.Value, a.Low, a.High)}
		}
		v.Notes = append(v.Notes, workload.Summarize("input audits over all parts", vs))
	}
	v.Notes = append(v.Notes, missingNotes(g, parts)...)
	switch {
	case running:
		v.Status = StatusRunning
	case complete == g.Parts:
		v.Status = string(store.Complete)
	default:
		v.Status = "partial"
		v.Notes = append(v.Notes, fmt.Sprintf("partial: %d of %d parts completed; the figures are those of the parts that measured", complete, g.Parts))
	}
	if v.rate.Type != "" && len(v.histogram) > 0 {
		sum := 0.0
		for _, l := range v.Lines {
			sum += l.Rate
		}
		v.Rate = &store.Figure{Name: v.rate.Figure, Value: sum, Unit: v.rate.Unit}
	}
	v.latencyTable()
	if g.CheckedBy == 0 && v.Status != StatusRunning {
		v.Notes = append(v.Notes, "no consistency check ran for the group (no part completed after all others had ended)")
	}
	return v
}

// commonWindow sets the parts' common measured window, on the store's
// clock in seconds after the start, and the headline rate's kind from the
// first part that names it.
func (v *View) commonWindow(g store.Group, parts []store.GroupPart, runs map[int]*store.Run) {
	first := true
	for _, p := range parts {
		r := runs[p.Part]
		if !hasData(r) {
			continue
		}
		from, to := measured(r, p.Skew, g.Start)
		if first {
			v.Window, first = Window{from, to}, false
		} else {
			v.Window.From, v.Window.To = max(v.Window.From, from), min(v.Window.To, to)
		}
		if rate, ok := parseRate(r.Param("group_rate")); ok && v.rate.Type == "" {
			v.rate = rate
		}
	}
}

// mergeLatency adds a part's latency histograms, exactly, to the group's
// per transaction type.
func (v *View) mergeLatency(r *store.Run) {
	for t, snap := range r.Latency {
		h := v.histogram[t]
		if h == nil {
			h = metrics.NewHistogram()
			v.histogram[t] = h
		}
		h.Merge(hdrhistogram.Import(snap))
	}
}

// latencyTable reads the percentiles of each merged histogram, in the
// order of the transaction types' names.
func (v *View) latencyTable() {
	types := make([]string, 0, len(v.histogram))
	for t := range v.histogram {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		h := v.histogram[t]
		v.Latency = append(v.Latency, Latency{Type: t, Count: h.TotalCount(), P50: ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)),
			P95: ms(h.ValueAtQuantile(95)), P99: ms(h.ValueAtQuantile(99)), Max: ms(h.Max())})
	}
}

// mergeTallies sums each audit's counts over the parts that measured and
// judges the sums again, in the order the audits first appear.
func mergeTallies(parts []store.GroupPart, runs map[int]*store.Run) []Audit {
	var order []string
	sums := map[string]*workload.Tally{}
	for _, p := range parts {
		r := runs[p.Part]
		if !hasData(r) {
			continue
		}
		for _, t := range r.Tallies {
			s, ok := sums[t.Name]
			if !ok {
				s = &workload.Tally{Name: t.Name, Scale: t.Scale, Expected: t.Expected, SD: t.SD, Low: t.Low, High: t.High, Allow: t.Allow}
				sums[t.Name] = s
				order = append(order, t.Name)
			}
			s.Count += t.Count
			s.Of += t.Of
		}
	}
	out := make([]Audit, 0, len(order))
	for _, name := range order {
		s := sums[name]
		out = append(out, Audit{Name: name, Count: s.Count, Of: s.Of, Value: s.Value(), Low: s.Low, High: s.High, Status: s.Judge()})
	}
	return out
}

// measured is a run's measured window in seconds after the group's start,
// on the store's clock (the run's own times plus its skew).
func measured(r *store.Run, skew time.Duration, start time.Time) (from, to float64) {
	ms, me := r.MeasureStart, r.MeasureEnd
	if ms.IsZero() || me.IsZero() {
		ms, me = r.StartedAt, r.EndedAt
	}
	return ms.Add(skew).Sub(start).Seconds(), me.Add(skew).Sub(start).Seconds()
}

// rateOver is the part's rate of rate.Type over window w: the counts of its
// series intervals whose middle lies in w, over their length. The series
// is on the run's time axis (seconds after its StartedAt, which the recorder
// sets to the part's agreed start), so the intervals of all parts line up
// on the store's clock within the skew's error.
func rateOver(r *store.Run, skew time.Duration, start time.Time, w Window, rate workload.Rate) float64 {
	offset := r.StartedAt.Add(skew).Sub(start).Seconds()
	var count int64
	var length float64
	for _, iv := range r.Series {
		if iv.Type != rate.Type {
			continue
		}
		l := iv.Length
		if l <= 0 {
			l = 1
		}
		mid := offset + float64(iv.Second) + l/2
		if mid < w.From || mid > w.To {
			continue
		}
		count += iv.Count
		length += l
	}
	if length <= 0 {
		return 0
	}
	return float64(count) / length * rate.Per.Seconds()
}

// partNotes carries a part's verdict notes (input audits, response times,
// the consistency check) into the group's, prefixed with the part.
func partNotes(k, n int, r *store.Run) []string {
	var out []string
	for _, note := range r.Notes {
		if strings.Contains(note, "PASS,") || strings.HasPrefix(note, "consistency check") || strings.HasPrefix(note, "INDICATIVE") || strings.HasPrefix(note, "COMPLIANT") {
			out = append(out, fmt.Sprintf("part %d/%d: %s", k, n, note))
		}
	}
	return out
}

// missingNotes names the parts that never ran: absent, late or given up.
func missingNotes(g store.Group, parts []store.GroupPart) []string {
	var out []string
	seen := map[int]bool{}
	for _, p := range parts {
		seen[p.Part] = true
		switch p.Status {
		case StatusLate:
			out = append(out, fmt.Sprintf("part %d/%d arrived after the start and was refused", p.Part, g.Parts))
		case StatusGaveUp:
			out = append(out, fmt.Sprintf("part %d/%d gave up waiting for the others", p.Part, g.Parts))
		}
	}
	for k := 1; k <= g.Parts; k++ {
		if !seen[k] {
			out = append(out, fmt.Sprintf("part %d/%d never registered", k, g.Parts))
		}
	}
	return out
}

func ms(us int64) float64 { return float64(us) / 1000 }

// Collapse replaces the runs of every group in a run list by one line for
// the group, where its newest part was: its name as id, its status, the
// summed rate and the merged p99.
func Collapse(ctx context.Context, st *store.Store, runs []store.Summary) ([]store.Summary, error) {
	groupOf, err := st.RunGroups(ctx)
	if err != nil {
		return nil, err
	}
	if len(groupOf) == 0 {
		return runs, nil
	}
	out := make([]store.Summary, 0, len(runs))
	done := map[string]bool{}
	for _, r := range runs {
		name, ok := groupOf[r.ID]
		if !ok {
			out = append(out, r)
			continue
		}
		if done[name] {
			continue
		}
		done[name] = true
		v, err := Load(ctx, st, name)
		if err != nil {
			return nil, err
		}
		line := store.Summary{ID: name, Workload: v.Workload, Status: store.Status(v.Status), StartedAt: r.StartedAt, EndedAt: r.EndedAt,
			Title: fmt.Sprintf("group of %d parts: %s", v.Parts, r.Title)}
		for _, p := range runs {
			if groupOf[p.ID] == name {
				line.StartedAt = minTime(line.StartedAt, p.StartedAt)
				if p.EndedAt.After(line.EndedAt) {
					line.EndedAt = p.EndedAt
				}
			}
		}
		if v.Rate != nil {
			line.Headline = append(line.Headline, *v.Rate)
			if h := v.Histogram(v.rate.Type); h != nil {
				line.Headline = append(line.Headline, store.Figure{Name: v.rate.Type + " p99", Value: ms(h.ValueAtQuantile(99)), Unit: "ms"})
			}
		}
		out = append(out, line)
	}
	return out, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// SkewText shows a skew for people: "+1.234ms".
func SkewText(d time.Duration) string {
	s := d.Round(time.Microsecond).String()
	if d >= 0 {
		s = "+" + s
	}
	return s
}

// RateText shows a rate for people, to one decimal.
func RateText(x float64) string { return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64) }
