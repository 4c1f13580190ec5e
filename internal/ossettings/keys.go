// Package ossettings changes the few kernel and block-device settings an
// experiment may measure, machine-wide: an allow-list of keys (dirty-page
// writeback, swappiness, the scheduler's migration cost, transparent huge
// pages, huge pages, read-ahead and the I/O scheduler of the disk under the
// data directory), each value validated against what the kernel accepts and
// each key probed for writability before anything runs; values are applied,
// read back, and the originals written back and read back.
//
// It must not know experiments (tune), the managed cluster or where
// originals are kept (internal/pending keeps them, seen as a Keeper); it
// reads and writes the machine, and sizes huge pages from pg_settings.
package ossettings

import (
	"math"
	"os"
	"sort"
	"strings"
)

// Values are OS settings, key → value as written to the kernel.
type Values map[string]string

// kind is how a key's value is written and checked.
type kind int

const (
	number kind = iota // an integer within [min, max], a multiple of step
	choice             // one of the words the kernel file lists ("always [madvise] never")
)

// key is one allow-listed setting.
type key struct {
	name string
	// paths are where the value lives, the first that exists wins; for a
	// block key, a file in the data disk's queue directory.
	paths    []string
	block    bool
	kind     kind
	min, max int64
	step     int64 // number: the value must be a multiple of it (0: any)
	// partner is the key the kernel zeroes when this one is written: the
	// bytes and ratio forms of the same dirty-page limit.
	partner string
}

// Hugepages is the plan key that reserves huge pages for shared_buffers
// (value auto): it becomes NrHugepages and huge_pages=on.
const (
	Hugepages   = "hugepages"
	NrHugepages = "vm.nr_hugepages"
)

var pageSize = int64(os.Getpagesize())

// keys is the allow-list: no network, security or module settings.
var keys = map[string]key{
	"vm.dirty_background_bytes":    {paths: sysctl("vm/dirty_background_bytes"), min: 1, max: math.MaxInt64, partner: "vm.dirty_background_ratio"},
	"vm.dirty_bytes":               {paths: sysctl("vm/dirty_bytes"), min: 2 * pageSize, max: math.MaxInt64, partner: "vm.dirty_ratio"},
	"vm.dirty_background_ratio":    {paths: sysctl("vm/dirty_background_ratio"), max: 100, partner: "vm.dirty_background_bytes"},
	"vm.dirty_ratio":               {paths: sysctl("vm/dirty_ratio"), max: 100, partner: "vm.dirty_bytes"},
	"vm.dirty_expire_centisecs":    {paths: sysctl("vm/dirty_expire_centisecs"), max: math.MaxInt32},
	"vm.dirty_writeback_centisecs": {paths: sysctl("vm/dirty_writeback_centisecs"), max: math.MaxInt32},
	// The kernel takes 0 to 100 before Linux 5.8 and 0 to 200 since (see maxSwappiness).
	"vm.swappiness": {paths: sysctl("vm/swappiness"), max: 200},
	// Since Linux 5.13 in debugfs, before in /proc/sys.
	"kernel.sched_migration_cost_ns": {paths: []string{"/proc/sys/kernel/sched_migration_cost_ns", "/sys/kernel/debug/sched/migration_cost_ns"}, max: math.MaxInt32},
	"transparent_hugepage.enabled":   {paths: []string{"/sys/kernel/mm/transparent_hugepage/enabled"}, kind: choice},
	"transparent_hugepage.defrag":    {paths: []string{"/sys/kernel/mm/transparent_hugepage/defrag"}, kind: choice},
	// The kernel keeps read-ahead in pages: another value reads back rounded.
	"block.read_ahead_kb": {paths: []string{"read_ahead_kb"}, block: true, max: 1 << 20, step: pageSize / 1024},
	"block.scheduler":     {paths: []string{"scheduler"}, block: true, kind: choice},
	NrHugepages:           {paths: sysctl("vm/nr_hugepages"), max: math.MaxInt32},
}

// aliases are the short forms a plan may use.
var aliases = map[string]string{"transparent_hugepage": "transparent_hugepage.enabled"}

func sysctl(rel string) []string { return []string{"/proc/sys/" + rel} }

// Canonical is the allow-listed name of a plan's key ("transparent_hugepage"
// → "transparent_hugepage.enabled"), and whether it is allowed at all.
func Canonical(name string) (string, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	if a, ok := aliases[name]; ok {
		name = a
	}
	if name == Hugepages {
		return name, true
	}
	_, ok := keys[name]
	return name, ok && name != NrHugepages
}

// Allowed lists the keys a plan may set, sorted.
func Allowed() []string {
	out := []string{Hugepages}
	for n := range keys {
		if n != NrHugepages {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// MachineWide reports whether name is an OS key rather than a PostgreSQL
// setting: every output labels it machine-wide.
func MachineWide(name string) bool {
	_, ok := keys[name]
	return ok || name == Hugepages
}

// Sorted is the names of v, sorted.
func (v Values) Sorted() []string {
	out := make([]string, 0, len(v))
	for n := range v {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
