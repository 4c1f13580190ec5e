package tune

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/pgoltp/pgoltp/internal/ossettings"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/tune/record"
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
	if len(ok) < record.MinImportanceTrials {
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
	r.writeVerdict(p)
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

// writeVerdict says what the search found: a configuration shown better
// than the start, with its settings, or "keep the starting settings" with
// the best candidate listed as unproven.
func (r *Result) writeVerdict(p func(string, ...any)) {
	gains := func() {
		p("  gain over the start:      %s (objective %s)", effectText(r.VsStart), r.Objective)
		switch {
		case r.BestIsAdvise:
			p("  gain over advise's:       none: the best is advise's configuration")
		case r.VsAdvise.Pairs > 0:
			p("  gain over advise's:       %s", effectText(r.VsAdvise))
		}
	}
	if r.Shown() {
		p("best configuration, confirmed by re-runs against the start:")
		gains()
		for _, n := range sortedKeys(r.Kept) {
			p("  %-34s %-10s (start %s)%s", n, r.Kept[n], r.Start[n], unsafeTag(r.Major, n, r.Kept[n]))
		}
		return
	}
	if r.Confirmed {
		p("result: keep the starting settings (the best candidate was NOT shown better when re-run: its interval does not lie above zero; more runs or a quieter machine)")
		gains()
	} else {
		p("result: keep the starting settings (the best so far was NOT re-run against the start)")
	}
	if len(r.Unproven) == 0 {
		return
	}
	p("unproven candidate (not kept; --apply and --format conf|sql take it only with --force):")
	for _, n := range sortedKeys(r.Unproven) {
		p("  %-34s %-10s (start %s)%s", n, r.Unproven[n], r.Start[n], unsafeTag(r.Major, n, r.Unproven[n]))
	}
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
	if r.Design == "auto" {
		p("  comparisons: one switchback run where only settings that take effect on reload differ (the ablation says which), separate runs otherwise")
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
		var unmeasured []string
		for _, c := range r.Ablation {
			switch {
			case !c.Measured:
				unmeasured = append(unmeasured, c.Name)
			case !c.Removal.Valid:
				p("  %-34s kept: removing it had no interval (runs too short)", c.Name)
			case c.Kept:
				p("  %-34s kept: removing it %s%s", c.Name, effectText(c.Removal), designTag(c.Design))
			default:
				p("  %-34s dropped: removing it %s%s", c.Name, effectText(c.Removal), designTag(c.Design))
			}
		}
		if len(unmeasured) > 0 {
			p("  not measured (kept, --ablation): %s", strings.Join(unmeasured, ", "))
		}
	}
	if len(r.Dropped) > 0 {
		p("dropped (no measurable contribution): %s", strings.Join(r.Dropped, ", "))
	}
	r.writeImportance(p)
}

// writeImportance writes the settings whose rank correlation with the
// objective went beyond chance, or why there is none to write.
func (r *Result) writeImportance(p func(string, ...any)) {
	n := 0
	for _, t := range r.Trials {
		if !t.Failed {
			n++
		}
	}
	if len(r.Importance) == 0 {
		if n > 0 && n < record.MinImportanceTrials {
			p("importance: not computed from %d trials (it needs at least %d)", n, record.MinImportanceTrials)
		}
		return
	}
	var parts []string
	for _, im := range r.Importance {
		if len(parts) < 5 && math.Abs(im.Rho) > im.Noise() {
			parts = append(parts, fmt.Sprintf("%s %+.2f", im.Name, im.Rho))
		}
	}
	if len(parts) == 0 {
		p("importance: no setting went with the objective beyond chance over %d trials (|ρ| ≤ %.2f)", r.Importance[0].N, r.Importance[0].Noise())
		return
	}
	p("importance (rank correlation with the objective over %d trials, beyond chance |ρ| %.2f): %s", r.Importance[0].N, r.Importance[0].Noise(), strings.Join(parts, ", "))
}

// designTag names a comparison's design when it was not separate runs.
func designTag(design string) string {
	if design == DesignSwitchback {
		return " [switchback: one run alternating both]"
	}
	return ""
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
	if ossettings.MachineWide(name) {
		return " [" + string(ossettings.MachineWideLabel) + "]"
	}
	if r, _ := settings.LabelFor(major, name, value); r.Unsafe() {
		return " " + settings.Tag(r)
	}
	return ""
}

// written is what --format writes: the kept settings, or with force the
// unproven candidate of a best not shown better than the start (nothing
// without force: the verdict refuses). header says which.
func (r *Result) written(force bool) (values map[string]string, header string) {
	switch {
	case r.Shown():
		return r.Kept, ""
	case force:
		return r.Unproven, " UNPROVEN (--force): NOT shown better than the start"
	}
	return nil, " nothing: NOT shown better than the start (keep the starting settings; --force writes the unproven candidate)"
}

// WriteConf writes the kept settings as postgresql.conf lines (see written).
func (r *Result) WriteConf(w io.Writer, force bool) error {
	var b strings.Builder
	values, header := r.written(force)
	fmt.Fprintf(&b, "# pgoltp tune %s: %s, objective %s%s\n", r.ID, r.Workload, r.Objective, header)
	b.WriteString(osPlan("#", values))
	values = pgOnly(values)
	for _, n := range sortedKeys(values) {
		fmt.Fprintf(&b, "%s = '%s'%s\n", n, strings.ReplaceAll(values[n], "'", "''"), commentTag(r.Major, n, values[n]))
	}
	if l := r.Layout; l != nil && l.Kept {
		fmt.Fprintf(&b, "# layout (a table option, not a server setting; --format sql gives the statements): fillfactor %s\n", layoutText(l.Tables, l.Start, l.Best))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteSQL writes the kept settings as ALTER SYSTEM statements (see
// written), and the kept layout (--layout) as ALTER TABLE statements with
// their rewrite.
func (r *Result) WriteSQL(w io.Writer, force bool) error {
	var b strings.Builder
	values, header := r.written(force)
	fmt.Fprintf(&b, "-- pgoltp tune %s: %s, objective %s%s\n", r.ID, r.Workload, r.Objective, header)
	b.WriteString(osPlan("--", values))
	values = pgOnly(values)
	for _, n := range sortedKeys(values) {
		fmt.Fprintf(&b, "ALTER SYSTEM SET %s = '%s';%s\n", n, strings.ReplaceAll(values[n], "'", "''"), strings.Replace(commentTag(r.Major, n, values[n]), "#", "--", 1))
	}
	if len(values) > 0 {
		b.WriteString("SELECT pg_reload_conf();  -- settings that need a restart take effect after one\n")
	}
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

// osPlan is the OS part of values (tune --os) as an experiment plan's os:
// block, in comment lines: machine-wide settings are neither
// postgresql.conf's nor ALTER SYSTEM's, and the search restored them.
func osPlan(comment string, values map[string]string) string {
	v := ossettings.PlanValues(values)
	if len(v) == 0 {
		return ""
	}
	kv := make([]string, 0, len(v))
	for _, n := range v.Sorted() {
		kv = append(kv, n+": "+v[n])
	}
	return fmt.Sprintf("%s machine-wide OS settings (restored after the search; not the server's): as a plan's os: block, for 'pgoltp experiment --allow-os PLAN' (as root)\n%s os: {%s}\n",
		comment, comment, strings.Join(kv, ", "))
}
