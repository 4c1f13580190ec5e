package ossettings

import (
	"errors"
	"fmt"
	"maps"
	"strings"
)

// Merge layers values: originals, then a baseline, then a step. A layer
// that sets one form of a dirty-page limit zeroes the other, as the kernel
// does, so that the result is what reading back will show.
func Merge(layers ...Values) Values {
	out := Values{}
	for _, l := range layers {
		for n, v := range l {
			out[n] = v
			if p := keys[n].partner; p != "" {
				if _, both := l[p]; !both {
					out[p] = "0"
				}
			}
		}
	}
	return out
}

// WithPartners is names with the partner of each dirty-page limit: both
// forms are read and kept, since writing one changes the other.
func WithPartners(names []string) []string {
	set := map[string]bool{}
	for _, n := range names {
		set[n] = true
		if p := keys[n].partner; p != "" {
			set[p] = true
		}
	}
	return Values(mapOf(set)).Sorted()
}

func mapOf(set map[string]bool) map[string]string {
	out := map[string]string{}
	for n := range set {
		out[n] = ""
	}
	return out
}

// apply writes values (as Merge made them) and reads every one back: it
// fails naming each key whose value differs. Of the two forms of a
// dirty-page limit it writes the one that is not zero. It is unexported:
// a change goes through Experiment.Apply, which refuses it without root
// and --allow-os; only Restore (the originals back) may call it otherwise.
func (m *Machine) apply(values Values) error {
	var errs []error
	for _, n := range values.Sorted() {
		v := values[n]
		if p := keys[n].partner; p != "" && v == "0" {
			if pv, both := values[p]; both && (pv != "0" || keys[n].min > 0) {
				continue // writing the partner zeroes this one (a bytes form cannot be written 0)
			}
		}
		if err := m.write(n, v); err != nil {
			errs = append(errs, err)
		}
	}
	if err := m.Verify(values); err != nil {
		if len(errs) > 0 {
			return fmt.Errorf("%w (while writing: %v)", err, errors.Join(errs...))
		}
		return err
	}
	return nil
}

// Verify reads values back and names every key that differs.
func (m *Machine) Verify(values Values) error {
	now, err := m.Read(values.Sorted()...)
	if err != nil {
		return err
	}
	var differ []string
	for _, n := range values.Sorted() {
		if now[n] != values[n] {
			differ = append(differ, fmt.Sprintf("%s=%s (wanted %s)", n, now[n], values[n]))
		}
	}
	if len(differ) > 0 {
		return fmt.Errorf("OS settings read back differ: %s", strings.Join(differ, ", "))
	}
	return nil
}

// Restore writes the originals back and reads them back: apply, for the
// values that were there before (what 'pgoltp restore' needs, without
// --allow-os).
func (m *Machine) Restore(originals Values) error {
	if len(originals) == 0 {
		return nil
	}
	if err := m.apply(maps.Clone(originals)); err != nil {
		return fmt.Errorf("restoring the OS settings: %w", err)
	}
	return nil
}
