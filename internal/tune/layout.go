package tune

// The layout phase (--layout): per-table fillfactor of the workload's
// update-heavy tables. A fillfactor takes effect only when a table is
// rewritten, so it cannot be one more dimension of the settings search;
// it is searched after it, with the best settings, in its own phase:
//
//  1. uniform levels: every table at 90, 80, 70 (never above its start);
//  2. the best level minus one table at a time (that table back at its
//     start), to find which tables the gain comes from;
//  3. the layout left after step 2, confirmed by paired re-runs against
//     the start layout, kept only when its 95% interval lies above zero.
//
// Every run is preceded by a rewrite of the tables to its layout, the
// start layout's runs included, so that no run profits from freshly
// packed pages the other did not have. Each candidate is judged like a
// settings trial: its level over the geometric mean of the start-layout
// runs on either side (R C1 R C2 R …).

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"sort"
	"strings"

	"github.com/pgoltp/pgoltp/internal/stats"
	"github.com/pgoltp/pgoltp/internal/tune/record"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Tables are the workload's tables that it updates in place, whose
// fillfactor the layout phase searches.
type Tables interface {
	// Names are the tables, in the workload's order.
	Names() []string
	// Fillfactors reads each table's fillfactor (0: not set, PostgreSQL's
	// default of 100).
	Fillfactors(ctx context.Context) (map[string]int, error)
	// Rewrite sets each table's fillfactor (0: resets it) and rewrites the
	// table so that its pages are filled to it.
	Rewrite(ctx context.Context, ff map[string]int) error
}

// layoutLevels are the uniform fillfactors tried first: HOT updates need
// free space on the page, and the seeds' studies found 70–90 the useful
// range for tables updated in place.
var layoutLevels = []int{90, 80, 70}

// effectiveFF is the fillfactor a table really has (not set: 100).
func effectiveFF(v int) int {
	if v == 0 {
		return 100
	}
	return v
}

// uniformLayouts are step 1's candidates: every table at each level, never
// above its start fillfactor, without repeats or the start itself.
func uniformLayouts(tables []string, start map[string]int) []map[string]int {
	var out []map[string]int
	seen := map[string]bool{layoutKey(tables, start): true}
	for _, level := range layoutLevels {
		c := map[string]int{}
		for _, t := range tables {
			c[t] = min(effectiveFF(start[t]), level)
			if c[t] == effectiveFF(start[t]) {
				c[t] = start[t] // unchanged: keep "not set" as it was
			}
		}
		if k := layoutKey(tables, c); !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// withoutOne are step 2's candidates: best with one changed table at a time
// back at its start value, in table order.
func withoutOne(tables []string, start, best map[string]int) (names []string, out []map[string]int) {
	for _, t := range tables {
		if best[t] == start[t] {
			continue
		}
		c := maps.Clone(best)
		c[t] = start[t]
		names, out = append(names, t), append(out, c)
	}
	return names, out
}

// layoutKey is a layout as one comparable string.
func layoutKey(tables []string, ff map[string]int) string {
	var b strings.Builder
	for _, t := range tables {
		fmt.Fprintf(&b, "%s=%d;", t, effectiveFF(ff[t]))
	}
	return b.String()
}

// layoutText is "stock 80, customer 90" (changed tables only).
func layoutText(tables []string, start, ff map[string]int) string {
	var parts []string
	for _, t := range tables {
		if ff[t] != start[t] {
			parts = append(parts, fmt.Sprintf("%s %d", t, effectiveFF(ff[t])))
		}
	}
	if len(parts) == 0 {
		return "the start layout"
	}
	return strings.Join(parts, ", ")
}

// layoutPhase runs the three steps with settings ref on every run and
// fills res.Layout. The tables are left at the start layout unless the
// caller keeps the result (--apply).
func (s *session) layoutPhase(ref map[string]string, res *Result) error {
	tables := s.Layout.Names()
	start, err := s.Layout.Fillfactors(s.ctx)
	if err != nil {
		return fmt.Errorf("reading the tables' fillfactor: %w", err)
	}
	lay := &record.Layout{Tables: tables, Start: start, Reference: ref}
	res.Layout = lay
	s.logf("layout: fillfactor of %s, with the best settings", strings.Join(tables, ", "))
	l := &layoutSearch{s: s, ref: ref, tables: tables, start: start, lay: lay, res: res}

	// 1. Uniform levels.
	uniform := uniformLayouts(tables, start)
	if len(uniform) == 0 {
		lay.Notes = append(lay.Notes, "every table is already at 70 or below: nothing to try")
		return nil
	}
	labels := make([]string, len(uniform))
	for i, c := range uniform {
		labels[i] = "layout " + layoutText(tables, start, c)
	}
	if err := l.try(uniform, labels); err != nil {
		return err
	}
	best, bestRatio := bestLayout(lay.Candidates)
	if best == nil || bestRatio <= 1 {
		lay.Notes = append(lay.Notes, "no uniform fillfactor beat the start layout")
		return nil
	}

	// 2. Which tables the gain comes from: the best minus one table.
	if best, err = l.narrow(best, bestRatio); err != nil {
		return err
	}
	if layoutKey(tables, best) == layoutKey(tables, start) {
		lay.Notes = append(lay.Notes, "no table kept a lower fillfactor")
		return nil
	}

	// 3. Confirmation against the start layout.
	return l.confirm(best)
}

// layoutSearch is one layout phase under way: its tables, their start
// layout, the settings every run uses, and the trials so far.
type layoutSearch struct {
	s      *session
	ref    map[string]string
	tables []string
	start  map[string]int
	lay    *record.Layout
	res    *Result
	n      int // layout trials so far
}

// run measures one layout and returns its objective level (0: failed).
func (l *layoutSearch) run(ff map[string]int, role, label string) (float64, workload.Measurement, string, error) {
	if err := l.s.Layout.Rewrite(l.s.ctx, ff); err != nil {
		return 0, workload.Measurement{}, "", fmt.Errorf("rewriting the tables: %w", err)
	}
	m, _, id, err := l.s.measure(l.ref, RunInfo{Trial: l.n, Role: role, Label: label})
	if err != nil {
		return 0, m, id, err
	}
	return runOf(l.s.Objective, m).Level, m, id, nil
}

// reference measures the start layout, which every candidate is compared to.
func (l *layoutSearch) reference() (float64, error) {
	v, _, _, err := l.run(l.start, record.RoleLayout, "start layout")
	if err == nil && !(v > 0) {
		err = fmt.Errorf("the start layout's run committed nothing")
	}
	return v, err
}

// try measures candidates interleaved with the start layout.
func (l *layoutSearch) try(cands []map[string]int, labels []string) error {
	before, err := l.reference()
	if err != nil {
		return err
	}
	for i, c := range cands {
		if l.s.outer.Err() != nil {
			return errors.New("interrupted")
		}
		l.n++
		lt := record.LayoutTrial{N: l.n, Fillfactor: c}
		v, m, id, err := l.run(c, record.RoleLayout, labels[i])
		lt.RunID, lt.TPS, lt.P99 = id, m.TPS(), m.P99
		if err != nil || !(v > 0) {
			lt.Failed, lt.Error = true, "no transactions committed"
			if err != nil {
				lt.Error = oneLine(err.Error())
			}
		}
		after, err := l.reference()
		if err != nil {
			return err
		}
		if !lt.Failed {
			lt.Ratio = v / math.Sqrt(before*after)
			l.s.logf("layout %-3d %-40s %10.1f tps  %.3f× start layout", l.n, layoutText(l.tables, l.start, c), m.TPS(), lt.Ratio)
		} else {
			l.s.logf("layout %-3d %-40s FAILED: %s", l.n, layoutText(l.tables, l.start, c), lt.Error)
		}
		l.lay.Candidates = append(l.lay.Candidates, lt)
		l.s.store(l.res, record.Running)
		before = after
	}
	return nil
}

// narrow tries the best layout minus one table at a time and returns it
// without the tables whose lower fillfactor did not help.
func (l *layoutSearch) narrow(best map[string]int, bestRatio float64) (map[string]int, error) {
	names, minus := withoutOne(l.tables, l.start, best)
	if len(minus) <= 1 {
		return best, nil
	}
	var labels []string
	for _, t := range names {
		labels = append(labels, "layout best without "+t)
	}
	from := len(l.lay.Candidates)
	if err := l.try(minus, labels); err != nil {
		return nil, err
	}
	final := maps.Clone(best)
	for i, t := range names {
		c := l.lay.Candidates[from+i]
		// No worse without it (single runs: a hint; step 3 decides).
		if !c.Failed && c.Ratio >= bestRatio {
			final[t] = l.start[t]
		}
	}
	return final, nil
}

// confirm runs best against the start layout in pairs (A B A B A) and
// keeps it only when the paired interval lies above zero.
func (l *layoutSearch) confirm(best map[string]int) error {
	var as, bs []stats.Run
	for i := 0; i <= 2; i++ {
		_, m, _, err := l.run(l.start, record.RoleLayout, "confirm start layout")
		if err != nil {
			return err
		}
		as = append(as, runOf(l.s.Objective, m))
		if i == 2 {
			break
		}
		_, m, _, err = l.run(best, record.RoleLayout, "confirm layout "+layoutText(l.tables, l.start, best))
		if err != nil {
			return err
		}
		bs = append(bs, runOf(l.s.Objective, m))
	}
	lay := l.lay
	lay.Best, lay.Gain = best, stats.Paired(as, bs, level)
	lay.Kept = lay.Gain.Better()
	l.s.logf("layout %s: %s%s", layoutText(l.tables, l.start, best), effectText(lay.Gain), map[bool]string{true: " (kept)", false: " (not kept: the interval does not lie above zero)"}[lay.Kept])
	return nil
}

// bestLayout is the successful candidate with the highest ratio.
func bestLayout(cands []record.LayoutTrial) (map[string]int, float64) {
	var best map[string]int
	ratio := 0.0
	for _, c := range cands {
		if !c.Failed && c.Ratio > ratio {
			best, ratio = c.Fillfactor, c.Ratio
		}
	}
	return best, ratio
}

// layoutSQL writes the kept layout as ALTER TABLE statements with the
// rewrite that makes them take effect.
func layoutSQL(lay *record.Layout) string {
	if lay == nil || !lay.Kept {
		return ""
	}
	var b strings.Builder
	names := make([]string, 0, len(lay.Best))
	for t := range lay.Best {
		if lay.Best[t] != lay.Start[t] {
			names = append(names, t)
		}
	}
	sort.Strings(names)
	for _, t := range names {
		fmt.Fprintf(&b, "ALTER TABLE %s SET (fillfactor = %d);\n", quoteIdent(t), effectiveFF(lay.Best[t]))
	}
	for _, t := range names {
		fmt.Fprintf(&b, "VACUUM FULL %s;  -- rewrites the table to the new fillfactor (ACCESS EXCLUSIVE lock)\n", quoteIdent(t))
	}
	return b.String()
}

// quoteIdent quotes a table name as an SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
