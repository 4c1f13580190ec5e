package tune

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pgoltp/pgoltp/internal/search"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// Limits are what PostgreSQL may use on this host (the cgroup limits
// included) and what the server allows: they bound the search space.
type Limits struct {
	RAM            int64   // bytes PostgreSQL may use
	CPUs           float64 // CPUs PostgreSQL may use
	HugePagesTotal int64   // reserved huge pages (0: huge_pages=on would not start)
	MaxConnections int     // the server's max_connections: each may use work_mem
	// NoRestart leaves out the settings that need a restart: pgoltp may not
	// restart a server it does not manage.
	NoRestart bool
}

// dim is one setting as a search dimension, in a unit people read (MB, ms)
// rather than pg_settings' (8kB pages).
type dim struct {
	name    string
	unit    string // the dimension's unit: "MB", "kB", "s", "ms" or "" (plain number)
	integer bool
	lo, hi  float64
	log     bool
	choices []string // categorical: the values as written in postgresql.conf
	// sentinel maps a special value of the setting (-1: "use another
	// setting") to the number it stands for, so the start point lies in the
	// space.
	sentinel map[string]float64
	// machine: an OS setting (tune --os), whose start is the machine's
	// value before the search, not a pg_settings row.
	machine bool
	start   string
}

// Space is the search space of a tune: the optimiser's dimensions and how
// each maps to a setting.
type Space struct {
	*search.Space
	dims   []dim
	limits Limits
	major  int
}

// candidates is the list of settings the tuner may search, with bounds
// before the host and the server narrow them. Memory bounds are filled in by
// NewSpace.
func candidates(l Limits) []dim {
	ramMB := float64(l.RAM) / (1 << 20)
	workers := math.Max(1, math.Min(8, math.Round(l.CPUs*2)))
	return []dim{
		{name: "shared_buffers", unit: "MB", integer: true, lo: 128, hi: math.Max(128, ramMB*0.4), log: true},
		{name: "effective_cache_size", unit: "MB", integer: true, lo: 128, hi: math.Max(128, ramMB*0.75), log: true},
		{name: "work_mem", unit: "kB", integer: true, lo: 1024, hi: 256 * 1024, log: true},
		{name: "maintenance_work_mem", unit: "MB", integer: true, lo: 16, hi: math.Max(16, math.Min(2048, ramMB/8)), log: true},
		{name: "max_wal_size", unit: "MB", integer: true, lo: 256, hi: 16384, log: true},
		{name: "min_wal_size", unit: "MB", integer: true, lo: 32, hi: 4096, log: true},
		{name: "checkpoint_timeout", unit: "s", integer: true, lo: 60, hi: 3600, log: true},
		{name: "checkpoint_completion_target", lo: 0.5, hi: 0.95},
		{name: "wal_buffers", choices: []string{"-1", "1MB", "4MB", "16MB", "64MB"}},
		{name: "wal_compression", choices: []string{"off", "pglz", "lz4", "zstd"}},
		{name: "wal_writer_delay", unit: "ms", integer: true, lo: 10, hi: 1000, log: true},
		{name: "commit_delay", integer: true, lo: 0, hi: 1000},
		{name: "commit_siblings", integer: true, lo: 1, hi: 20},
		{name: "bgwriter_delay", unit: "ms", integer: true, lo: 10, hi: 1000, log: true},
		{name: "bgwriter_lru_maxpages", integer: true, lo: 0, hi: 1000},
		{name: "bgwriter_lru_multiplier", lo: 0.5, hi: 10},
		{name: "effective_io_concurrency", integer: true, lo: 0, hi: 256},
		{name: "random_page_cost", lo: 1, hi: 4},
		{name: "autovacuum_naptime", unit: "s", integer: true, lo: 5, hi: 300, log: true},
		{name: "autovacuum_vacuum_scale_factor", lo: 0.005, hi: 0.4, log: true},
		{name: "autovacuum_analyze_scale_factor", lo: 0.005, hi: 0.2, log: true},
		{name: "autovacuum_vacuum_cost_limit", integer: true, lo: 100, hi: 10000, log: true, sentinel: map[string]float64{"-1": 200}},
		{name: "autovacuum_vacuum_cost_delay", unit: "ms", lo: 0, hi: 20},
		{name: "autovacuum_max_workers", integer: true, lo: 1, hi: workers},
		{name: "huge_pages", choices: []string{"try", "off"}},
		{name: "jit", choices: []string{"on", "off"}},
		// Costs durability when off: searched only with --allow-unsafe.
		{name: "synchronous_commit", choices: []string{"on", "off"}},
	}
}

// NewSpace builds the search space for a server of major version with the
// given pg_settings (live), within limits. A setting the version does not
// have, or that settings.CheckApplicable refuses, is left out; one whose
// every value costs durability is left out unless allowUnsafe. Numeric
// bounds are narrowed to the server's pg_settings range and widened to hold
// the server's current value (the start point).
func NewSpace(major int, live map[string]settings.Live, limits Limits, allowUnsafe bool) (*Space, error) {
	if limits.RAM <= 0 {
		return nil, fmt.Errorf("the memory PostgreSQL may use is not known")
	}
	if limits.MaxConnections <= 0 {
		limits.MaxConnections = 100
	}
	s := &Space{limits: limits, major: major}
	var sdims []search.Dimension
	for _, d := range candidates(limits) {
		if _, ok := settings.Lookup(d.name, major); !ok {
			continue
		}
		if settings.CheckApplicable(map[string]string{d.name: "0"}) != nil {
			continue
		}
		l, haveLive := live[d.name]
		if s, _ := settings.Lookup(d.name, major); limits.NoRestart && (s.NeedsRestart() || haveLive && l.Context == settings.Postmaster) {
			continue
		}
		if d.choices != nil {
			keep := choicesOf(d, major, l, haveLive, limits, allowUnsafe)
			if len(keep) < 2 {
				continue // nothing to choose (synchronous_commit without --allow-unsafe)
			}
			d.choices = keep
			s.dims = append(s.dims, d)
			sdims = append(sdims, search.Choice(d.name, keep...))
			continue
		}
		if haveLive && (l.Kind == settings.Integer || l.Kind == settings.Real) {
			if lo, hi, ok := liveBounds(d, l); ok {
				d.lo, d.hi = math.Max(d.lo, lo), math.Min(d.hi, hi)
			}
			if cur, err := d.valueOf(l.Value()); err == nil {
				d.lo, d.hi = math.Min(d.lo, cur), math.Max(d.hi, cur)
			}
		}
		if d.lo > d.hi {
			continue
		}
		if d.log && d.lo <= 0 {
			d.log = false
		}
		s.dims = append(s.dims, d)
		if d.integer {
			sdims = append(sdims, search.Int(d.name, int64(math.Ceil(d.lo)), int64(math.Floor(d.hi)), d.log))
		} else {
			sdims = append(sdims, search.Float(d.name, d.lo, d.hi, d.log))
		}
	}
	sp, err := search.NewSpace(sdims...)
	if err != nil {
		return nil, err
	}
	s.Space = sp
	return s, nil
}

// choicesOf are the values of a choice dimension this server can take:
// known to the major, built into the server, safe unless allowUnsafe, and the
// server's current value (the start point must be in the space).
func choicesOf(d dim, major int, l settings.Live, haveLive bool, limits Limits, allowUnsafe bool) []string {
	choices := slices.Clone(d.choices)
	if d.name == "wal_compression" && major < 15 {
		choices = []string{"off", "on"} // a boolean before 15
	}
	if d.name == "huge_pages" && limits.HugePagesTotal > 0 {
		choices = append(choices, "on")
	}
	var keep []string
	for _, c := range choices {
		if haveLive && len(l.Enum) > 0 && d.name != "wal_buffers" && !containsFold(l.Enum, c) {
			continue // e.g. lz4 on a server built without it
		}
		if err := settings.Validate(major, d.name, c); err != nil {
			continue
		}
		if r, _ := settings.LabelFor(major, d.name, c); r.Unsafe() && !allowUnsafe {
			continue
		}
		keep = append(keep, c)
	}
	if haveLive {
		if cur := normalChoice(d, l.Value()); cur != "" && !containsFold(keep, cur) {
			keep = append(keep, cur)
		}
	}
	return keep
}

// liveBounds converts the server's pg_settings min and max into the
// dimension's unit.
func liveBounds(d dim, l settings.Live) (float64, float64, bool) {
	lo, err1 := d.valueOf(l.Format(l.Min))
	hi, err2 := d.valueOf(l.Format(l.Max))
	return lo, hi, err1 == nil && err2 == nil
}

// valueOf converts a setting's value as a person writes it into the
// dimension's unit.
func (d dim) valueOf(value string) (float64, error) {
	if v, ok := d.sentinel[strings.TrimSpace(value)]; ok {
		return v, nil
	}
	unit := d.unit
	if unit == "" {
		return strconv.ParseFloat(strings.TrimSpace(value), 64)
	}
	return settings.ToUnit(value, unit)
}

// text renders a value of the dimension as a setting value.
func (d dim) text(v float64) string {
	switch {
	case d.integer:
		return strconv.FormatInt(int64(math.Round(v)), 10) + d.unit
	default:
		return strconv.FormatFloat(v, 'g', 4, 64) + d.unit
	}
}

// normalChoice maps the server's value of a categorical setting onto one
// of the dimension's spellings ("-1" for a computed wal_buffers).
func normalChoice(d dim, value string) string {
	if d.name == "wal_buffers" {
		return "" // the computed value is shown, not -1: the start is "-1", always a choice
	}
	return strings.ToLower(value)
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// Settings renders a point as setting values.
func (s *Space) Settings(p search.Point) map[string]string {
	out := make(map[string]string, len(s.dims))
	for i, d := range s.dims {
		if d.choices != nil {
			out[d.name] = d.choices[int(p[i])]
		} else {
			out[d.name] = d.text(p[i])
		}
	}
	return out
}

// PointOf maps setting values onto a point; settings the space does not
// hold are ignored and dimensions without a value take fallback's.
func (s *Space) PointOf(values map[string]string, fallback search.Point) (search.Point, error) {
	p := make(search.Point, len(s.dims))
	for i, d := range s.dims {
		v, ok := values[d.name]
		if !ok {
			if fallback == nil {
				return nil, fmt.Errorf("no value for %s", d.name)
			}
			p[i] = fallback[i]
			continue
		}
		if d.choices != nil {
			idx := -1
			for j, c := range d.choices {
				if strings.EqualFold(c, strings.TrimSpace(v)) {
					idx = j
				}
			}
			if idx < 0 {
				if fallback == nil {
					return nil, fmt.Errorf("%s=%s is not one of %s", d.name, v, strings.Join(d.choices, ", "))
				}
				idx = int(fallback[i])
			}
			p[i] = float64(idx)
			continue
		}
		x, err := d.valueOf(v)
		if err != nil {
			return nil, fmt.Errorf("%s=%s: %v", d.name, v, err)
		}
		dd := s.Dims()[i]
		x = math.Max(dd.Low, math.Min(dd.High, x))
		if d.integer {
			x = math.Max(dd.Low, math.Min(dd.High, math.Round(x)))
		}
		p[i] = x
	}
	return p, nil
}

// StartPoint is the server's current configuration as a point (wal_buffers
// as -1, its computed default).
func (s *Space) StartPoint(live map[string]settings.Live) (search.Point, error) {
	values := map[string]string{}
	for _, d := range s.dims {
		if d.machine {
			values[d.name] = d.start
			continue
		}
		l, ok := live[d.name]
		if !ok {
			return nil, fmt.Errorf("the server does not report %s", d.name)
		}
		values[d.name] = l.Value()
		if d.name == "wal_buffers" {
			values[d.name] = "-1"
			if l.Source != "default" && l.Source != "" {
				values[d.name] = l.Value()
			}
		}
	}
	return s.PointOf(values, nil)
}

// Names lists the settings of the space, in order.
func (s *Space) Names() []string {
	out := make([]string, len(s.dims))
	for i, d := range s.dims {
		out[i] = d.name
	}
	return out
}

// memoryMB is what a configuration may use at most: shared_buffers, a
// work_mem per connection, a maintenance_work_mem per autovacuum worker.
func (s *Space) memoryMB(values map[string]string) float64 {
	mb := func(name string) float64 {
		v, err := settings.ToUnit(values[name], "MB")
		if err != nil || v < 0 {
			return 0
		}
		return v
	}
	workers := 3.0
	if w, err := strconv.ParseFloat(values["autovacuum_max_workers"], 64); err == nil {
		workers = w
	}
	return mb("shared_buffers") + mb("wal_buffers") + float64(s.limits.MaxConnections)*mb("work_mem") + workers*mb("maintenance_work_mem")
}

// BudgetMB is the memory the tuner lets a configuration use: 90% of what
// PostgreSQL may use (the rest is for backends' own memory and the OS).
func (s *Space) BudgetMB() float64 { return 0.9 * float64(s.limits.RAM) / (1 << 20) }

// Fit clips a point into the memory budget: work_mem first (its worst case
// multiplies by every connection), then maintenance_work_mem, then
// shared_buffers, each not below its lower bound. It fails when even the
// lower bounds exceed the budget.
func (s *Space) Fit(p search.Point) (search.Point, error) {
	p = append(search.Point(nil), p...)
	if lo, hi := s.index("min_wal_size"), s.index("max_wal_size"); lo >= 0 && hi >= 0 && p[lo] > p[hi] {
		p[lo] = math.Max(s.Dims()[lo].Low, p[hi]) // min_wal_size above max_wal_size means nothing
	}
	budget := s.BudgetMB()
	for _, name := range []string{"work_mem", "maintenance_work_mem", "shared_buffers"} {
		over := s.memoryMB(s.Settings(p)) - budget
		if over <= 0 {
			return p, nil
		}
		i := s.index(name)
		if i < 0 {
			continue
		}
		d, sd := s.dims[i], s.Dims()[i]
		cur, _ := d.valueOf(d.text(p[i]))
		perUnit := 1.0 // MB the setting costs per MB of its value
		switch name {
		case "work_mem":
			perUnit = float64(s.limits.MaxConnections)
		case "maintenance_work_mem":
			perUnit = 3
			if w, err := strconv.ParseFloat(s.Settings(p)["autovacuum_max_workers"], 64); err == nil {
				perUnit = w
			}
		}
		wantMB := math.Max(0, mb(d, cur)-over/perUnit)
		want := wantMB
		if d.unit == "kB" {
			want = wantMB * 1024
		}
		p[i] = math.Max(sd.Low, math.Floor(want))
	}
	if used := s.memoryMB(s.Settings(p)); used > budget {
		return nil, fmt.Errorf("even the smallest memory settings need %.0fMB, more than the %.0fMB budget", used, budget)
	}
	return p, nil
}

func mb(d dim, v float64) float64 {
	if d.unit == "kB" {
		return v / 1024
	}
	return v
}

func (s *Space) index(name string) int {
	for i, d := range s.dims {
		if d.name == name {
			return i
		}
	}
	return -1
}

// Unsafe lists the settings of values whose risk costs durability, with
// their label.
func Unsafe(major int, values map[string]string) []string {
	var out []string
	for _, name := range sortedKeys(values) {
		if r, _ := settings.LabelFor(major, name, values[name]); r.Unsafe() {
			out = append(out, fmt.Sprintf("%s=%s %s", name, values[name], settings.Tag(r)))
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
