package study

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/field"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// Options are what a study was asked to do (compare-versions or a versions
// plan).
type Options struct {
	Majors       []int
	Builds       []string // builds of 'pgoltp build' to compare instead of majors (one major, theirs)
	Workload     string   // one of Kinds
	Kinds        []string // the workloads a study can run (the registry's), the first the default
	Scale        int      // TPC-B
	Warehouses   int      // TPC-C
	Clients      int
	Duration     time.Duration // 0 when DurationText is not a duration
	DurationText string        // as given, for the message
	Repetitions  int
	Sets         []string              // name=value, applied on every major
	PerMajor     map[int][]Translation // the Sets as each major takes them, filled by Validate
}

// ParseMajors reads the majors to compare: two or more distinct ones,
// comma-separated. Its errors are field errors (field.Error) of Majors.
func ParseMajors(pg string) ([]int, error) {
	var majors []int
	seen := map[int]bool{}
	for _, s := range strings.Split(pg, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		m, err := strconv.Atoi(s)
		if err != nil || m == 0 {
			return nil, field.New("Majors", pg, "{} %q: give majors such as 10,15,18", pg)
		}
		if err := cluster.ValidMajor(m); err != nil {
			return nil, field.New("Majors", pg, "{}: %v", err)
		}
		if !seen[m] {
			seen[m] = true
			majors = append(majors, m)
		}
	}
	if len(majors) < 2 {
		return nil, field.New("Majors", pg, "{} %q: give at least two majors to compare, e.g. {} 10,15", pg)
	}
	return majors, nil
}

// Validate checks the workload, the counts and the settings (translated for
// every major into PerMajor) before any cluster is touched. Its errors are
// field errors (field.Error).
func (o *Options) Validate() error {
	if err := o.validateBuilds(); err != nil {
		return err
	}
	if !slices.Contains(o.Kinds, o.Workload) {
		return field.New("Workload", o.Workload, "{} %q: use %s", o.Workload, or(o.Kinds))
	}
	if o.Duration <= 0 {
		return field.New("Duration", o.DurationText, "{} %q: give a duration such as 30s or 5m", o.DurationText)
	}
	if err := o.validateCounts(); err != nil {
		return err
	}
	o.PerMajor = map[int][]Translation{}
	sets, err := settings.ParseAssignments(o.Sets)
	if err != nil {
		return field.New("Sets", o.Sets, "{} %v: use name=value", err)
	}
	for _, a := range sets {
		for _, m := range o.Majors {
			t, err := Translate(m, a.Name, a.Value)
			if err != nil {
				return field.New("Sets", a.Given, "{} %s for PostgreSQL %d: %v", a.Given, m, err).Fix("fix or drop the {}")
			}
			o.PerMajor[m] = append(o.PerMajor[m], t)
		}
	}
	return nil
}

// validateBuilds checks that every build named is in the cache, before any
// cluster is touched, and makes their one major the study's.
func (o *Options) validateBuilds() error {
	if len(o.Builds) == 0 {
		return nil
	}
	major := 0
	for i, name := range o.Builds {
		if slices.Contains(o.Builds[:i], name) {
			return field.New("Builds", name, "{}: %s is listed twice", name)
		}
		b, err := cluster.ReadBuild(cluster.CacheDir(), name)
		if err != nil {
			return field.New("Builds", name, "{}: no usable PostgreSQL build %q in %s", name, cluster.BuildsDir(cluster.CacheDir())).Because(err).
				Fix("make it with 'pgoltp build --name %s' ('pgoltp build --list' shows the builds), or drop it from {}", name)
		}
		m, _ := strconv.Atoi(strings.SplitN(b.Version, ".", 2)[0])
		if major != 0 && m != major {
			return field.New("Builds", o.Builds, "{}: %s is PostgreSQL %d, %s %d; compare builds of one major", name, m, o.Builds[0], major)
		}
		major = m
	}
	if len(o.Builds) < 2 {
		return field.New("Builds", o.Builds, "{}: name at least two builds to compare")
	}
	o.Majors = []int{major}
	return nil
}

// validateCounts refuses a count below 1, naming the first.
func (o *Options) validateCounts() error {
	for _, c := range []struct {
		field string
		n     int
	}{{"Repetitions", o.Repetitions}, {"Scale", o.Scale}, {"Warehouses", o.Warehouses}, {"Clients", o.Clients}} {
		if c.n < 1 {
			return field.New(c.field, c.n, "{Repetitions}, {Scale}, {Warehouses} and {Clients} must be at least 1")
		}
	}
	return nil
}

// Translations are every major's translations, ordered by the setting given.
func (o *Options) Translations() []Translation {
	var all []Translation
	for _, m := range o.Majors {
		all = append(all, o.PerMajor[m]...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Given < all[j].Given })
	return all
}

// MajorsList is the majors as ParseMajors takes them: "10,15,18".
func (o *Options) MajorsList() string {
	s := make([]string, len(o.Majors))
	for i, m := range o.Majors {
		s[i] = strconv.Itoa(m)
	}
	return strings.Join(s, ",")
}

// or joins names as the help lists them: "a, b or c".
func or(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
