package ossettings

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// Parse checks a plan's os: block without looking at the machine: every key
// allow-listed, numbers that are numbers, hugepages only auto, and not both
// forms of one dirty-page limit. It returns the block with canonical names.
func Parse(block map[string]string) (Values, error) {
	out := Values{}
	for name, value := range block {
		canon, ok := Canonical(name)
		if !ok {
			return nil, fmt.Errorf("os: %s is not an OS setting pgoltp changes (allowed: %s)", name, strings.Join(Allowed(), ", "))
		}
		value = strings.TrimSpace(value)
		if canon == Hugepages {
			if !strings.EqualFold(value, "auto") {
				return nil, fmt.Errorf("os: hugepages takes auto (huge pages reserved for shared_buffers), not %q", value)
			}
			value = "auto"
		} else if keys[canon].kind == number {
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("os: %s=%q is not a whole number", canon, value)
			}
			value = strconv.FormatInt(n, 10) // as the kernel reads it back: "010" would be octal to it
		}
		out[canon] = value
	}
	for name := range out {
		if p := keys[name].partner; p != "" && out[p] != "" {
			return nil, fmt.Errorf("os: %s and %s are one limit (the kernel keeps one of them): set only one", name, p)
		}
	}
	return out, nil
}

// Refuse says why pgoltp must not change the OS for this command (an
// experiment's os:, tune --os): not
// root, no --allow-os, or a server on another machine.
func Refuse(allowOS bool, remote string) error {
	if remote != "" {
		return problem.BadInput("run pgoltp on the server's machine (with --dsn to it there, or its managed cluster)",
			"OS settings (a plan's os:, tune --os) change the machine pgoltp runs on, but the server %s is not on this machine", remote)
	}
	if os.Geteuid() != 0 {
		return problem.BadInput("run it as root (sudo), with --allow-os",
			"OS settings (a plan's os:, tune --os) change machine-wide, which needs root (running as uid %d)", os.Geteuid())
	}
	if !allowOS {
		return problem.BadInput("pass --allow-os to let pgoltp change them (and put them back)",
			"OS settings (a plan's os:, tune --os) change machine-wide: kernel and disk, for every process on this machine")
	}
	return nil
}

// Check validates values on this machine before anything runs: each key
// exists, is writable, and its value is one the kernel accepts (a choice
// its file lists, a number in its range). Every key that fails is named, in
// one line.
func (m *Machine) Check(values Values) error {
	var bad []string
	for _, name := range values.Sorted() {
		if err := m.checkOne(name, values[name]); err != nil {
			bad = append(bad, err.Error())
		}
	}
	if len(bad) > 0 {
		return problem.BadInput("leave these keys out of the plan, or run where they can be changed",
			"OS settings refused before the run: %s", strings.Join(bad, "; "))
	}
	return nil
}

func (m *Machine) checkOne(name, value string) error {
	if name == Hugepages {
		name = NrHugepages // resolved later from shared_buffers; the reservation must be writable
		value = "0"
	}
	if err := m.writable(name); err != nil {
		return err
	}
	k := keys[name]
	if k.kind == choice {
		words, err := m.choices(name)
		if err != nil {
			return err
		}
		if !slices.Contains(words, value) {
			return fmt.Errorf("%s=%s: this kernel takes %s", name, value, strings.Join(words, ", "))
		}
		return nil
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return fmt.Errorf("%s=%q is not a whole number", name, value)
	}
	hi := k.max
	if name == "vm.swappiness" && !kernelAtLeast(5, 8) {
		hi = 100
	}
	if n < k.min || n > hi {
		return fmt.Errorf("%s=%d: this kernel takes %d to %d", name, n, k.min, hi)
	}
	if k.step > 1 && n%k.step != 0 {
		return fmt.Errorf("%s=%d: must be a multiple of %d (the kernel keeps it in pages)", name, n, k.step)
	}
	return nil
}
