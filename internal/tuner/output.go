package tuner

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/tuner/record"
)

// importance ranks the settings by |Spearman ρ| between their value and
// the objective over the successful trials.
func importance(space *Space, trials []Trial) []Importance {
	var ok []Trial
	for _, t := range trials {
		if !t.Failed {
			ok = append(ok, t)
		}
	}
	if len(ok) < 3 {
		return nil
	}
	y := make([]float64, len(ok))
	for i, t := range ok {
		y[i] = t.Value
	}
	ry := ranks(y)
	var out []Importance
	for j, name := range space.Names() {
		x := make([]float64, len(ok))
		for i, t := range ok {
			x[i] = t.Point[j]
		}
		rho := stat.Correlation(ranks(x), ry, nil)
		if math.IsNaN(rho) {
			continue // the setting did not vary
		}
		out = append(out, Importance{Name: name, Rho: rho, N: len(ok)})
	}
	sort.SliceStable(out, func(a, b int) bool { return math.Abs(out[a].Rho) > math.Abs(out[b].Rho) })
	return out
}

// ranks are the average ranks of v (ties share their mean rank).
func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			r[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return r
}

// WriteText writes the result for people.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	r.writeSearch(p)
	if r.Confirmed && r.VsStart.Percent <= 0 {
		p("no configuration beat the start when re-run; the best candidate:")
		p("  gain over the start:      %s", effectText(r.VsStart))
		if r.VsAdvise.Pairs > 0 {
			p("  gain over advise's:       %s", effectText(r.VsAdvise))
		}
	} else if r.Confirmed && !r.VsStart.Better() {
		// Re-run and ahead, but within the noise: say so, not "confirmed".
		p("best configuration, re-run against the start: NOT shown better (its interval includes zero; more runs or a quieter machine):")
		p("  gain over the start:      %s", effectText(r.VsStart))
		if r.VsAdvise.Pairs > 0 {
			p("  gain over advise's:       %s", effectText(r.VsAdvise))
		}
	} else if r.Confirmed {
		p("best configuration, confirmed by re-runs against the start:")
		p("  gain over the start:      %s", effectText(r.VsStart))
		if r.VsAdvise.Pairs > 0 {
			p("  gain over advise's:       %s", effectText(r.VsAdvise))
		}
	} else {
		p("best configuration so far (NOT confirmed by re-runs):")
	}
	for _, n := range sortedKeys(r.Kept) {
		p("  %-34s %-10s (start %s)%s", n, r.Kept[n], r.Start[n], unsafeTag(r.Major, n, r.Kept[n]))
	}
	r.writeAblation(p)
	if l := r.Layout; l != nil {
		writeLayout(p, l)
	}
	p("tried: %s", strings.Join(r.Tried, ", "))
	for _, u := range r.Unsafe {
		p("UNSAFE: %s", u)
	}
	for _, n := range r.Notes {
		p("note: %s", n)
	}
	switch {
	case r.Applied:
		p("the kept settings are applied to the server")
	case r.Restored:
		p("the server's original settings are restored (verified by reading pg_settings back)")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSearch writes what was searched, the failed trials and the
// baseline's drift.
func (r *Result) writeSearch(p func(string, ...any)) {
	p("search %s: %s, objective %s, %d trials", r.ID, r.Workload, r.Objective, len(r.Trials))
	failed := 0
	for _, t := range r.Trials {
		if t.Failed {
			failed++
		}
	}
	if failed > 0 {
		p("  %d trial(s) failed and were survived (settings rolled back)", failed)
	}
	if len(r.Baselines) > 1 {
		lo, hi := r.Baselines[0], r.Baselines[0]
		for _, v := range r.Baselines {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		p("  baseline drift: first %.1f, last %.1f, range %.1f .. %.1f (%d runs)", r.Baselines[0], r.Baselines[len(r.Baselines)-1], lo, hi, len(r.Baselines))
	}
}

// writeAblation writes what removing each kept setting did, what was
// dropped and which settings went with the objective.
func (r *Result) writeAblation(p func(string, ...any)) {
	if len(r.Ablation) > 0 {
		p("ablation (the best without one setting; contribution = −effect of removing it):")
		for _, c := range r.Ablation {
			switch {
			case !c.Measured:
				p("  %-34s not measured (kept)", c.Name)
			case !c.Removal.Valid:
				p("  %-34s kept: removing it had no interval (runs too short)", c.Name)
			case c.Kept:
				p("  %-34s kept: removing it %s", c.Name, effectText(c.Removal))
			default:
				p("  %-34s dropped: removing it %s", c.Name, effectText(c.Removal))
			}
		}
	}
	if len(r.Dropped) > 0 {
		p("dropped (no measurable contribution): %s", strings.Join(r.Dropped, ", "))
	}
	if len(r.Importance) > 0 {
		var parts []string
		for i, im := range r.Importance {
			if i == 5 {
				break
			}
			parts = append(parts, fmt.Sprintf("%s %+.2f", im.Name, im.Rho))
		}
		p("importance (rank correlation with the objective over the trials): %s", strings.Join(parts, ", "))
	}
}

// writeLayout says what the layout phase found.
func writeLayout(p func(string, ...any), l *record.Layout) {
	p("layout phase (fillfactor of %s, %d candidates):", strings.Join(l.Tables, ", "), len(l.Candidates))
	switch {
	case l.Best == nil:
		p("  no layout beat the start layout")
	case l.Kept:
		p("  %s: %s (kept)", layoutText(l.Tables, l.Start, l.Best), effectText(l.Gain))
	default:
		p("  %s: %s (not kept: the interval does not lie above zero)", layoutText(l.Tables, l.Start, l.Best), effectText(l.Gain))
	}
	for _, n := range l.Notes {
		p("  note: %s", n)
	}
	switch {
	case l.Applied:
		p("  the kept layout is applied (tables rewritten)")
	case l.Restored:
		p("  the tables' fillfactor is back as it was (verified)")
	}
}

func unsafeTag(major int, name, value string) string {
	if r, _ := settings.LabelFor(major, name, value); r.Unsafe() {
		return " " + settings.Tag(r)
	}
	return ""
}

// WriteConf writes the kept settings as postgresql.conf lines.
func (r *Result) WriteConf(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# pgoltp tune %s: %s, objective %s\n", r.ID, r.Workload, r.Objective)
	for _, n := range sortedKeys(r.Kept) {
		fmt.Fprintf(&b, "%s = '%s'%s\n", n, strings.ReplaceAll(r.Kept[n], "'", "''"), commentTag(r.Major, n, r.Kept[n]))
	}
	if l := r.Layout; l != nil && l.Kept {
		fmt.Fprintf(&b, "# layout (a table option, not a server setting; --format sql gives the statements): fillfactor %s\n", layoutText(l.Tables, l.Start, l.Best))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteSQL writes the kept settings as ALTER SYSTEM statements, and the
// kept layout (--layout) as ALTER TABLE statements with their rewrite.
func (r *Result) WriteSQL(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "-- pgoltp tune %s: %s, objective %s\n", r.ID, r.Workload, r.Objective)
	for _, n := range sortedKeys(r.Kept) {
		fmt.Fprintf(&b, "ALTER SYSTEM SET %s = '%s';%s\n", n, strings.ReplaceAll(r.Kept[n], "'", "''"), strings.Replace(commentTag(r.Major, n, r.Kept[n]), "#", "--", 1))
	}
	b.WriteString("SELECT pg_reload_conf();  -- settings that need a restart take effect after one\n")
	b.WriteString(layoutSQL(r.Layout))
	_, err := io.WriteString(w, b.String())
	return err
}

func commentTag(major int, name, value string) string {
	if t := unsafeTag(major, name, value); t != "" {
		return "  #" + t
	}
	return ""
}
