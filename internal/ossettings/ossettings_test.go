package ossettings

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/settings"
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
	pgtest.MachineWide(t)
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
			if err := m.apply(Merge(originals, step)); err != nil {
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
	pgtest.MachineWide(t)
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

// TestApplyRefusedWithoutAllow: an experiment whose command did not allow
// OS changes (no --allow-os) changes nothing, whoever calls Apply: the rule
// holds where the machine changes, not only in the command.
func TestApplyRefusedWithoutAllow(t *testing.T) {
	m := &Machine{}
	before, err := m.Read("vm.swappiness")
	if err != nil {
		t.Skipf("no vm.swappiness here: %v", err)
	}
	other := "13"
	if before["vm.swappiness"] == other {
		other = "14"
	}
	for _, opts := range []Options{{}, {Allow: true, Remote: "postgres://bench@db1:5432/pgoltp"}} {
		e := &Experiment{machine: m, opts: opts, originals: before}
		err := e.Apply(Values{"vm.swappiness": other})
		if problem.ExitCode(err) != 2 {
			t.Errorf("Apply with %+v: %v, want a refusal (exit 2)", opts, err)
		}
		if now, _ := m.Read("vm.swappiness"); now["vm.swappiness"] != before["vm.swappiness"] {
			t.Fatalf("a refused Apply changed vm.swappiness to %s", now["vm.swappiness"])
		}
	}
}

// TestSearchDimsApplyRestore: the OS side of tune --os offers the keys this
// machine lets it write, each with its start first; a trial's value of each
// is applied and read back (vm.dirty_bytes with a background limit below
// it), and the originals come back and read back. hugepages without a
// restartable server is listed as refused, with why.
func TestSearchDimsApplyRestore(t *testing.T) {
	needRoot(t)
	m := &Machine{DataDir: t.TempDir()}
	keepMachine(t, m)
	live := map[string]settings.Live{"data_directory": {Setting: m.DataDir}}
	if _, err := PrepareSearch(SearchOptions{}, live); problem.ExitCode(err) != 2 || !strings.Contains(err.Error(), "--allow-os") {
		t.Fatalf("PrepareSearch without --allow-os: %v", err)
	}
	s, err := PrepareSearch(SearchOptions{Options: Options{Allow: true}}, live)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("dimensions %+v; refused %q", s.Dims, s.Refused)
	if !slices.ContainsFunc(s.Refused, func(r string) bool { return strings.HasPrefix(r, "hugepages: needs a restart") }) {
		t.Errorf("hugepages not refused for a server that may not restart: %v", s.Refused)
	}
	if err := s.Keep(nil); err != nil {
		t.Fatal(err)
	}
	originals := s.Originals()
	for _, d := range s.Dims {
		if d.Choices[0] != d.Start || len(d.Choices) < 2 {
			t.Fatalf("%s: choices %v, start %s", d.Name, d.Choices, d.Start)
		}
		trial := map[string]string{d.Name: d.Choices[len(d.Choices)-1]}
		if err := s.Apply(trial, nil); err != nil {
			t.Fatal(err)
		}
		want := PlanValues(trial)
		if got, _ := m.Read(want.Sorted()...); !equal(got, want) {
			t.Errorf("%s: the machine shows %v during the trial, want %v", d.Name, got, want)
		}
		if d.Name == "vm.dirty_bytes" && !(atoi(want["vm.dirty_background_bytes"]) < atoi(want["vm.dirty_bytes"])) {
			t.Errorf("dirty limits %v: background not below the limit", want)
		}
	}
	if ok, notes := s.Restore(nil); !ok {
		t.Fatal(notes)
	}
	if got, _ := m.Read(originals.Sorted()...); !equal(got, originals) {
		t.Fatalf("after Restore %v, before %v", got, originals)
	}
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// TestSearchHugepagesAuto: with a server that may restart, hugepages is a
// dimension (off, auto); a trial's auto reserves the huge pages its
// shared_buffers needs, and the original reservation comes back.
func TestSearchHugepagesAuto(t *testing.T) {
	needRoot(t)
	if os.Getenv("PGOLTP_TEST_ALONE") == "" {
		// Reserved huge pages are taken by any PostgreSQL that starts
		// meanwhile with huge_pages=try (the default): scripts/test runs
		// this alone, after everything else.
		t.Skip("reserves huge pages machine-wide: run alone with PGOLTP_TEST_ALONE=1 (scripts/test does)")
	}
	m := &Machine{DataDir: t.TempDir()}
	keepMachine(t, m)
	live := map[string]settings.Live{"data_directory": {Setting: m.DataDir}}
	s, err := PrepareSearch(SearchOptions{Options: Options{Allow: true}, Restart: true}, live)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(s.Dims, func(d SearchDim) bool { return d.Name == Hugepages })
	if i < 0 {
		t.Skipf("no huge pages here: %v", s.Refused)
	}
	if d := s.Dims[i]; d.Start != HugepagesOff || !slices.Equal(d.Choices, []string{HugepagesOff, "auto"}) {
		t.Fatalf("hugepages dimension %+v", d)
	}
	if err := s.Keep(nil); err != nil {
		t.Fatal(err)
	}
	originals := s.Originals()
	if err := s.Apply(map[string]string{Hugepages: "auto"}, map[string]string{"shared_buffers": "16MB"}); err != nil {
		t.Fatal(err)
	}
	want := s.exp.hugePagesFor("16MB")
	if got, _ := m.Read(NrHugepages); atoi(got[NrHugepages]) != want || want <= 8 {
		t.Errorf("vm.nr_hugepages %s during the trial, want %d", got[NrHugepages], want)
	}
	if ok, notes := s.Restore(nil); !ok {
		t.Fatal(notes)
	}
	if got, _ := m.Read(NrHugepages); got[NrHugepages] != originals[NrHugepages] {
		t.Fatalf("vm.nr_hugepages %s after Restore, was %s", got[NrHugepages], originals[NrHugepages])
	}
}
