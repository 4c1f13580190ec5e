package report

// The report of a `pgoltp tune` search: its trajectory, trials, setting
// importance, confirmation, ablation and layout phase, read from the
// results store alone (the search's record and its linked runs), so it
// renders on any machine that reaches the store.

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/ossettings"
	"github.com/pgoltp/pgoltp/internal/secret"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/stats"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/tune/record"
)

//go:embed assets/search.html
var searchTemplate string

// SearchRef says whether a report argument names a tune search rather than
// a run, and which: "tune" (the latest search), "tune:ID" or a search id
// itself ("tune-…"; run ids start with a date, so they never collide).
// The id returned may be a prefix; "" is the latest.
func SearchRef(ref string) (string, bool) {
	switch {
	case ref == record.Kind:
		return "", true
	case strings.HasPrefix(ref, record.Kind+":"):
		return strings.TrimPrefix(ref, record.Kind+":"), true
	case strings.HasPrefix(ref, record.Kind+"-"):
		return ref, true
	}
	return "", false
}

// ErrNoSearch says no stored search matches.
var ErrNoSearch = errors.New("no such tune search")

// SearchView is a tune search as its report shows it: the record the tuner
// stored, and every stored run linked to it.
type SearchView struct {
	record.Search
	Runs []store.SearchRun `json:"runs"`
}

// LoadSearch reads search ref ("" or "latest": the newest; else an id or
// a unique prefix) from the results store.
func LoadSearch(ctx context.Context, st *store.Store, ref string) (*SearchView, error) {
	id, err := st.ResolveSearch(ctx, record.Kind, ref)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w %q in %s", ErrNoSearch, ref, st.Where())
	}
	if err != nil {
		return nil, err
	}
	sr, err := st.LoadSearch(ctx, id)
	if err != nil {
		return nil, err
	}
	v := &SearchView{Runs: sr.Runs}
	if err := json.Unmarshal(sr.Document, &v.Search); err != nil {
		return nil, fmt.Errorf("search %s: its stored record is unreadable: %w", id, err)
	}
	return v, nil
}

// SearchJSON writes the search's record and its runs as JSON.
func SearchJSON(w io.Writer, v *SearchView) error {
	return secret.WriteJSON(w, v)
}

// SearchHTML writes the search's self-contained HTML page.
func SearchHTML(w io.Writer, v *SearchView) error {
	d := newSearchDoc(v, time.Now())
	fm := funcs(nil)
	fm["effect"] = effectText
	t, err := template.New("search").Funcs(fm).Parse(searchTemplate)
	if err != nil {
		return fmt.Errorf("search template: %w", err)
	}
	return t.Execute(w, d)
}

// searchDoc is what the search template shows.
type searchDoc struct {
	*SearchView
	Generated  time.Time
	Chart      *renderedChart
	Rows       []trialRow
	Drift      string
	Importance []importanceRow
	Method     string
	Ablation   []ablationRow
	Kept       []settingChange
	Unproven   []settingChange // the best's changes when not shown better than the start
	Layout     []layoutRow
	LayoutBest string
	Failed     int
}

// trialRow is one trial in the table.
type trialRow struct {
	record.Trial
	Changed []settingChange // against the start
	Best    bool            // its settings are the best configuration's
}

// settingChange is one setting away from its start value.
type settingChange struct {
	Name, Value, Start string
	Risk               string // "" unless unsafe
}

type importanceRow struct {
	record.Importance
	Chance  float64 // |ρ| that chance alone reaches one time in twenty
	Telling bool    // |ρ| beyond what chance gives one time in twenty
}

type ablationRow struct {
	record.Contribution
	Risk    string
	Verdict string
}

type layoutRow struct {
	record.LayoutTrial
	Text string
}

func newSearchDoc(v *SearchView, now time.Time) *searchDoc {
	s := &v.Search
	d := &searchDoc{SearchView: v, Generated: now}
	for _, t := range s.Trials {
		row := trialRow{Trial: t, Changed: changes(s.Major, t.Settings, s.Start)}
		row.Best = len(s.Best) > 0 && sameSettings(t.Settings, s.Best)
		if t.Failed {
			d.Failed++
		}
		d.Rows = append(d.Rows, row)
	}
	d.Kept = changes(s.Major, s.Kept, s.Start)
	d.Unproven = changes(s.Major, s.Unproven, s.Start)
	d.Chart = trajectoryChart(s)
	if len(s.Baselines) > 1 {
		lo, hi := s.Baselines[0], s.Baselines[0]
		for _, b := range s.Baselines {
			lo, hi = math.Min(lo, b), math.Max(hi, b)
		}
		d.Drift = fmt.Sprintf("%d baseline runs: first %s, last %s, range %s to %s (%.1f%% of the first)", len(s.Baselines),
			formatNum(s.Baselines[0]), formatNum(s.Baselines[len(s.Baselines)-1]), formatNum(lo), formatNum(hi), 100*(hi-lo)/s.Baselines[0])
	}
	n := 0
	for _, im := range s.Importance {
		row := importanceRow{Importance: im, Chance: im.Noise()}
		row.Telling = math.Abs(im.Rho) > row.Chance
		d.Importance = append(d.Importance, row)
		n = max(n, im.N)
	}
	d.Method = fmt.Sprintf("Spearman's rank correlation ρ between each setting's value and the objective over the %d successful trials. "+
		"It is an association within the trials the optimiser chose (which are not random: it samples near good points), not a measured effect: "+
		"with %d trials, |ρ| up to %.2f is what chance alone gives one time in twenty. The ablation below is the measured effect.",
		n, n, record.Importance{N: n}.Noise())
	for _, c := range s.Ablation {
		row := ablationRow{Contribution: c, Risk: riskOf(s.Major, c.Name, c.Value)}
		switch {
		case !c.Measured:
			row.Verdict = "not measured (kept)"
		case !c.Removal.Valid:
			row.Verdict = "kept: no interval"
		case c.Kept:
			row.Verdict = "kept"
		default:
			row.Verdict = "dropped: removing it cost nothing measurable"
		}
		d.Ablation = append(d.Ablation, row)
	}
	if l := s.Layout; l != nil {
		for _, c := range l.Candidates {
			d.Layout = append(d.Layout, layoutRow{LayoutTrial: c, Text: fillfactorText(l.Tables, l.Start, c.Fillfactor)})
		}
		if l.Best != nil {
			d.LayoutBest = fillfactorText(l.Tables, l.Start, l.Best)
		}
	}
	return d
}

// trajectoryChart draws the objective of each trial, the best so far, and
// the baseline runs relative to the first (their drift), against the
// trial number; a baseline run after trial n sits at n+½.
func trajectoryChart(s *record.Search) *renderedChart {
	if len(s.Trials) == 0 {
		return nil
	}
	obj := &line{Name: "trial objective (× neighbouring baselines)", Color: palette[0], Dots: true}
	best := &line{Name: "best so far", Color: palette[2], Dashed: true}
	var failed []marker
	for _, t := range s.Trials {
		if t.Failed {
			// No objective: a marker, and the line joins its neighbours.
			failed = append(failed, marker{X: float64(t.N), Kind: "failed", Detail: t.Error})
		} else {
			obj.X, obj.Y = append(obj.X, float64(t.N)), append(obj.Y, t.Value)
		}
		best.X, best.Y = append(best.X, float64(t.N)), append(best.Y, t.BestSoFar)
	}
	c := &timeChart{ID: "trajectory", Title: "Trajectory", Unit: "× baseline", Counts: true, Lines: []*line{obj, best}}
	if len(s.BaselineRuns) > 0 && s.BaselineRuns[0].Level > 0 {
		base := &line{Name: "baseline runs (× the first: drift)", Color: palette[1], Dots: true}
		for _, b := range s.BaselineRuns {
			base.X, base.Y = append(base.X, float64(b.After)+0.5), append(base.Y, b.Level/s.BaselineRuns[0].Level)
		}
		c.Lines = append(c.Lines, base)
	}
	x1 := float64(s.Trials[len(s.Trials)-1].N) + 1
	return &renderedChart{timeChart: c, SVG: svgTimeChart(c, 0, x1, failed, nil)}
}

// changes are the settings of values that differ from start, by name.
func changes(major int, values, start map[string]string) []settingChange {
	var out []settingChange
	for n, v := range values {
		if start[n] != v {
			out = append(out, settingChange{Name: n, Value: v, Start: start[n], Risk: riskOf(major, n, v)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// riskOf is the setting's risk when it costs durability, machine-wide for
// an OS setting (tune --os), else "".
func riskOf(major int, name, value string) string {
	if ossettings.MachineWide(name) {
		return string(ossettings.MachineWideLabel)
	}
	if r, _ := settings.LabelFor(major, name, value); r.Unsafe() {
		return string(r)
	}
	return ""
}

func sameSettings(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}

// fillfactorText is "stock 80, customer 90" (tables changed from start).
func fillfactorText(tables []string, start, ff map[string]int) string {
	var parts []string
	for _, t := range tables {
		if ff[t] != start[t] {
			v := ff[t]
			if v == 0 {
				v = 100
			}
			parts = append(parts, fmt.Sprintf("%s %d", t, v))
		}
	}
	if len(parts) == 0 {
		return "start layout"
	}
	return strings.Join(parts, ", ")
}

// effectText is "+12.3% (95% CI +5.1% .. +19.9%)".
func effectText(e stats.Effect) string {
	if !e.Valid {
		return "no interval (too few runs)"
	}
	return fmt.Sprintf("%+.1f%% (%.0f%% CI %+.1f%% .. %+.1f%%)", e.Percent, 100*e.Level, e.Low, e.High)
}
