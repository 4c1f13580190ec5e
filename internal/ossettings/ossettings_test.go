package ossettings

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// trial is a value each allow-listed key is set to in the test: one the
// kernel accepts, other than the usual default.
var trial = Values{
	"vm.dirty_background_bytes":      "268435456",
	"vm.dirty_bytes":                 "1073741824",
	"vm.dirty_background_ratio":      "5",
	"vm.dirty_ratio":                 "30",
	"vm.dirty_expire_centisecs":      "2000",
	"vm.dirty_writeback_centisecs":   "400",
	"vm.swappiness":                  "10",
	"kernel.sched_migration_cost_ns": "500000",
	"transparent_hugepage.enabled":   "never",
	"transparent_hugepage.defrag":    "never",
	"block.read_ahead_kb":            "4096",
	"block.scheduler":                "none",
	NrHugepages:                      "2",
}

// keepMachine reads every allow-listed key this machine has and puts them
// all back at the end of the test, whatever happened.
func keepMachine(t *testing.T, m *Machine) {
	t.Helper()
	var names []string
	for n := range keys {
		if _, err := m.path(n); err == nil {
			names = append(names, n)
		}
	}
	before, err := m.Read(names...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Restore(before); err != nil {
			t.Errorf("the machine's settings are not back: %v", err)
		}
	})
}

func needRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("changes kernel settings: run as root")
	}
}

// TestApplyReadBackRestoreEachKey: each allow-listed key writable here is
// set, read back, and its original written back and read back; a key that
// cannot be written here is refused by Check before anything is written.
func TestApplyReadBackRestoreEachKey(t *testing.T) {
	needRoot(t)
	m := &Machine{DataDir: t.TempDir()}
	keepMachine(t, m)
	for _, name := range Values(mapOf(setOf(keys))).Sorted() {
		t.Run(name, func(t *testing.T) {
			value, ok := trial[name]
			if !ok {
				t.Fatalf("no trial value for %s", name)
			}
			step := Values{name: value}
			if err := m.Check(step); err != nil {
				if !strings.Contains(err.Error(), name) || problem.ExitCode(err) != 2 {
					t.Fatalf("refusal %v (exit %d) does not name %s or is not bad input", err, problem.ExitCode(err), name)
				}
				t.Skipf("not writable on this machine, refused up front: %v", err)
			}
			originals, err := m.Read(WithPartners([]string{name})...)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Apply(Merge(originals, step)); err != nil {
				t.Fatal(err)
			}
			if got, _ := m.Read(name); got[name] != value {
				t.Fatalf("%s reads %q after Apply, want %q", name, got[name], value)
			}
			if err := m.Restore(originals); err != nil {
				t.Fatal(err)
			}
			if got, _ := m.Read(originals.Sorted()...); !equal(got, originals) {
				t.Fatalf("after Restore %v, before %v", got, originals)
			}
		})
	}
}

func setOf(m map[string]key) map[string]bool {
	out := map[string]bool{}
	for n := range m {
		out[n] = true
	}
	return out
}

func equal(a, b Values) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestCheckRefusesOutOfRange: values the kernel would refuse are refused
// before a run, naming the key and what the kernel takes.
func TestCheckRefusesOutOfRange(t *testing.T) {
	needRoot(t)
	m := &Machine{DataDir: t.TempDir()}
	for _, tc := range []struct{ name, value, says string }{
		{"vm.dirty_ratio", "101", "0 to 100"},
		{"vm.dirty_bytes", "4096", "to"},
		{"transparent_hugepage.enabled", "sometimes", "madvise"},
		{"block.scheduler", "cfq-please", "none"},
		{"block.read_ahead_kb", "3", "multiple"},
	} {
		err := m.Check(Values{tc.name: tc.value})
		var p *problem.Problem
		if !errors.As(err, &p) || !strings.Contains(err.Error(), tc.name) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s=%s: %v, want a problem naming the key and %q", tc.name, tc.value, err, tc.says)
		}
	}
}

// TestParse: only allow-listed keys, numbers, hugepages: auto, one form of
// a dirty-page limit.
func TestParse(t *testing.T) {
	v, err := Parse(map[string]string{"transparent_hugepage": "never", "hugepages": "AUTO", "vm.dirty_bytes": "1073741824", "vm.swappiness": "010"})
	if err != nil || v["transparent_hugepage.enabled"] != "never" || v[Hugepages] != "auto" || v["vm.swappiness"] != "10" {
		t.Fatalf("Parse: %v %v", v, err)
	}
	for _, bad := range []map[string]string{
		{"net.ipv4.ip_forward": "1"},
		{"vm.nr_hugepages": "100"},
		{"vm.swappiness": "low"},
		{"hugepages": "512"},
		{"vm.dirty_bytes": "1073741824", "vm.dirty_ratio": "10"},
	} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%v) accepted", bad)
		}
	}
}

// TestMergeDirtyPairs: setting one form of a dirty-page limit zeroes the
// other, as the kernel does.
func TestMergeDirtyPairs(t *testing.T) {
	orig := Values{"vm.dirty_bytes": "0", "vm.dirty_ratio": "20"}
	got := Merge(orig, Values{"vm.dirty_bytes": "1073741824"})
	if got["vm.dirty_ratio"] != "0" || got["vm.dirty_bytes"] != "1073741824" {
		t.Fatalf("Merge: %v", got)
	}
	if got := Merge(orig); got["vm.dirty_ratio"] != "20" || got["vm.dirty_bytes"] != "0" {
		t.Fatalf("Merge of the originals alone changed them: %v", got)
	}
}

// TestOneAtATime: while one experiment holds the machine's OS settings,
// another (any lab) is refused before it reads the originals, which would
// be the first one's values; once the first restores, the next may start.
func TestOneAtATime(t *testing.T) {
	needRoot(t)
	first := &Experiment{machine: &Machine{}, baseline: Values{"vm.swappiness": "10"}}
	if err := first.Keep(nil); err != nil {
		t.Fatal(err)
	}
	second := &Experiment{machine: &Machine{}, baseline: Values{"vm.swappiness": "10"}}
	if err := second.Keep(nil); problem.ExitCode(err) != 2 || !strings.Contains(err.Error(), "right now") {
		t.Fatalf("a second experiment while the first holds the OS: %v", err)
	}
	if ok, notes := first.Restore(nil); !ok {
		t.Fatal(notes)
	}
	if err := second.Keep(nil); err != nil {
		t.Fatalf("after the first restored: %v", err)
	}
	if ok, notes := second.Restore(nil); !ok {
		t.Fatal(notes)
	}
}
