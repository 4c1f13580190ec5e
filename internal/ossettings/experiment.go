package ossettings

import (
	"fmt"
	"maps"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// MachineWideLabel is the label every output gives an OS setting: it changes
// the whole machine, not the server alone.
const MachineWideLabel settings.Risk = "machine-wide"

// Options are what the command allows: OS changes at all (--allow-os), and
// the server when it is not on this machine (its description; "" when it
// is here).
type Options struct {
	Allow  bool
	Remote string
}

// Keeper keeps the originals before the first change (a pending.Guard):
// BeginOS stores them durably and returns the originals to restore,
// refusing while a record of OS settings is pending here or in lastLab;
// Keep stops the record from being removed when the restore failed;
// LabDir is the lab of the record.
type Keeper interface {
	BeginOS(originals map[string]string, dataDir, lastLab string) (map[string]string, error)
	Keep()
	LabDir() string
}

// Experiment is the OS side of one experiment: its checked plan, the
// originals and the machine. A nil *Experiment (a plan without os:) does
// nothing.
type Experiment struct {
	machine   *Machine
	baseline  Values
	steps     map[string]Values
	originals Values
	// sharedOverhead is the server's shared memory beyond shared_buffers,
	// in bytes, for hugepages: auto.
	sharedOverhead int64
	hugePage       int64
	// sharedBuffers is the server's shared_buffers before the experiment,
	// for an arm that does not set it.
	sharedBuffers string
	// lock is the machine's lock of OS changes, held from Keep to Restore.
	lock *os.File
	// opts are the command's: Apply refuses again with them (root,
	// --allow-os, a server here), where the change happens.
	opts Options
}

// Prepare checks the OS side of a plan before anything runs, changing
// nothing: the command may change the OS here (root, --allow-os, a server
// on this machine), every key is allow-listed, writable here and takes its
// value. live is the server's pg_settings (the data directory, shared
// memory). It returns nil when the plan has no os:.
func Prepare(opts Options, live map[string]settings.Live, baseline map[string]string, steps map[string]map[string]string) (*Experiment, error) {
	e := &Experiment{steps: map[string]Values{}, opts: opts}
	changes := len(baseline) > 0
	var err error
	if e.baseline, err = Parse(baseline); err != nil {
		return nil, err
	}
	for name, s := range steps {
		changes = changes || len(s) > 0
		if e.steps[name], err = Parse(s); err != nil {
			return nil, fmt.Errorf("step %q: %v", name, err)
		}
	}
	if !changes {
		return nil, nil
	}
	if err := Refuse(opts.Allow, opts.Remote); err != nil {
		return nil, err
	}
	e.machine = &Machine{DataDir: live["data_directory"].Setting}
	if err := e.machine.Check(Merge(append([]Values{e.baseline}, mapsOf(e.steps)...)...)); err != nil {
		return nil, err
	}
	e.hugePage = hugePageSize()
	e.sharedOverhead = sharedOverhead(live)
	e.sharedBuffers = live["shared_buffers"].Value()
	return e, nil
}

func mapsOf(m map[string]Values) []Values {
	out := make([]Values, 0, len(m))
	for _, n := range Values(mapOf(setOfValues(m))).Sorted() {
		out = append(out, m[n])
	}
	return out
}

func setOfValues(m map[string]Values) map[string]bool {
	out := map[string]bool{}
	for n := range m {
		out[n] = true
	}
	return out
}

// touched is every machine key the plan writes, with the partners of the
// dirty-page limits (writing one changes the other).
func (e *Experiment) touched() []string {
	set := map[string]bool{}
	for _, v := range append([]Values{e.baseline}, mapsOf(e.steps)...) {
		for n := range v {
			if n == Hugepages {
				n = NrHugepages
			}
			set[n] = true
		}
	}
	return WithPartners(Values(mapOf(set)).Sorted())
}

// Keep reads the originals of every key the plan writes and has keeper
// store them durably, before the first change.
func (e *Experiment) Keep(keeper Keeper) error {
	if e == nil {
		return nil
	}
	lock, err := lockMachine()
	if err != nil {
		return problem.BadInput("wait for it to end", "%v", err)
	}
	e.lock = lock
	orig, err := e.machine.Read(e.touched()...)
	if err != nil {
		return err
	}
	if keeper != nil {
		if orig, err = keeper.BeginOS(orig, e.machine.DataDir, lastLab(lock)); err != nil {
			return err
		}
		if err := setLastLab(lock, keeper.LabDir()); err != nil {
			return err
		}
	}
	e.originals = orig
	return nil
}

// Arm is what the machine must show for a run: the originals, the
// baseline's os:, and the step's (step "" is the baseline arm); hugepages:
// auto becomes the reservation shared_buffers of the arm's settings (or
// the server's) needs.
func (e *Experiment) Arm(step string, pg map[string]string) Values {
	if e == nil {
		return nil
	}
	return e.arm(pg, e.baseline, e.steps[step])
}

// arm is the originals with layers on top, hugepages: auto sized for pg's
// shared_buffers.
func (e *Experiment) arm(pg map[string]string, layers ...Values) Values {
	out := Merge(append([]Values{e.originals}, layers...)...)
	if _, ok := out[Hugepages]; ok {
		delete(out, Hugepages)
		sb := pg["shared_buffers"]
		if sb == "" {
			sb = e.sharedBuffers
		}
		out[NrHugepages] = strconv.FormatInt(e.hugePagesFor(sb), 10)
	}
	return out
}

// Apply puts an arm on the machine and reads it back. It refuses, changing
// nothing, unless the process is root and the command allowed OS changes
// (--allow-os) for a server on this machine: the rule holds here, where the
// machine changes, whatever a command checked before.
func (e *Experiment) Apply(arm Values) error {
	if e == nil {
		return nil
	}
	if err := Refuse(e.opts.Allow, e.opts.Remote); err != nil {
		return err
	}
	return e.machine.apply(arm)
}

// Differ names every key of arm the machine does not show now, for a run's
// "not in effect".
func (e *Experiment) Differ(arm Values) []string {
	if e == nil {
		return nil
	}
	now, err := e.machine.Read(arm.Sorted()...)
	if err != nil {
		return []string{"OS settings (" + err.Error() + ")"}
	}
	var out []string
	for _, n := range arm.Sorted() {
		if now[n] != arm[n] {
			out = append(out, fmt.Sprintf("%s=%s (wanted %s, machine-wide)", n, now[n], arm[n]))
		}
	}
	return out
}

// Restore writes the originals back and reads them back (bounded: kernel
// files answer at once). On failure the keeper's record stays and the note
// says so.
func (e *Experiment) Restore(keeper Keeper) (ok bool, notes []string) {
	if e == nil {
		return true, nil
	}
	if e.lock != nil {
		defer e.lock.Close() // releases the lock once the originals are back, or kept
	}
	if len(e.originals) == 0 {
		return true, nil
	}
	if err := e.machine.Restore(e.originals); err != nil {
		if keeper != nil {
			keeper.Keep() // and the lock names its lab for the next command
		}
		return false, []string{"could not restore the machine-wide OS settings: " + strings.Join(strings.Fields(err.Error()), " ") + "; the lab keeps them: run 'pgoltp restore'"}
	}
	if e.lock != nil {
		_ = setLastLab(e.lock, "") // restored: no lab holds the machine's originals
	}
	return true, []string{"the machine-wide OS settings " + strings.Join(e.originals.Sorted(), ", ") + " were restored and read back"}
}

// Pairs labels a step's os: block for the report: every key machine-wide.
func Pairs(block map[string]string) []settings.Pair {
	v, err := Parse(block)
	if err != nil {
		return nil
	}
	var out []settings.Pair
	for _, n := range v.Sorted() {
		why := "a kernel setting: changes every process on this machine for the run, restored at the end"
		if strings.HasPrefix(n, "block.") {
			why = "a setting of the disk under the data directory: changes every process using it, restored at the end"
		}
		if n == Hugepages {
			why = "reserves vm.nr_hugepages for shared_buffers (with huge_pages=on and a restart), restored at the end"
		}
		out = append(out, settings.Pair{Name: n, Value: v[n], Risk: MachineWideLabel, Why: why})
	}
	return out
}

// VerdictNote is what a step's verdict adds when it changed the OS.
func VerdictNote(block map[string]string) string {
	if len(block) == 0 {
		return ""
	}
	names := make([]string, 0, len(block))
	for n := range block {
		names = append(names, n)
	}
	sort.Strings(names)
	return " (machine-wide: " + strings.Join(names, ", ") + ")"
}

// hugePagesFor is the number of huge pages a server with shared_buffers sb
// needs: shared_buffers plus the rest of its shared memory, with a margin
// of 2% and 8 pages for what grows with other settings.
func (e *Experiment) hugePagesFor(sb string) int64 {
	bytes, err := settings.ToUnit(sb, "B")
	if err != nil || e.hugePage <= 0 {
		return 0
	}
	need := (int64(bytes) + e.sharedOverhead) * 102 / 100
	return (need+e.hugePage-1)/e.hugePage + 8
}

// sharedOverhead is the server's shared memory beyond shared_buffers:
// shared_memory_size (PostgreSQL 15+) minus shared_buffers, or else 64MB
// and 1/32 of shared_buffers, more than the fixed parts take.
func sharedOverhead(live map[string]settings.Live) int64 {
	sb, err := settings.ToUnit(live["shared_buffers"].Value(), "B")
	if err != nil {
		sb = 128 << 20
	}
	if size, err := settings.ToUnit(live["shared_memory_size"].Value(), "B"); err == nil && size > sb {
		return int64(size - sb)
	}
	return 64<<20 + int64(sb)/32
}

// hugePageSize is the kernel's default huge page size in bytes (0: none).
func hugePageSize() int64 { return meminfoBytes("Hugepagesize:") }

// meminfoBytes is the field of /proc/meminfo named name (with its colon),
// given there in kB, in bytes (0: absent or unreadable).
func meminfoBytes(name string) int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == name {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// Originals are the values before the experiment, as kept.
func (e *Experiment) Originals() Values {
	if e == nil {
		return nil
	}
	return maps.Clone(e.originals)
}
