package advise

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/host"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// WorkloadOLTP is the advisor's generic profile: OLTP, no workload known.
// The workloads it knows beyond that are the registry's (Profile).
const WorkloadOLTP = "oltp"

// NewestMajor is the PostgreSQL major the advisor assumes when told nothing;
// OldestMajor the oldest it advises for: the catalog's (internal/settings).
const (
	NewestMajor = settings.NewestMajor
	OldestMajor = settings.OldestMajor
)

// AdviseInput is everything the advisor bases its advice on.
type AdviseInput struct {
	Host        host.Host
	Connections int    // client connections the workload opens (0: not known)
	Workload    string // the workload's name, as the output shows it; "": WorkloadOLTP
	// HotRows: every transaction updates the same few rows of tiny tables
	// (TPC-B's branches and tellers), whose dead rows pile up fastest.
	HotRows bool
	Major   int // PostgreSQL major version (0: NewestMajor)
	// WALBytesPerSecond is the WAL rate measured under the real workload (from
	// a past run or by sampling pg_current_wal_lsn); 0 when unknown.
	WALBytesPerSecond float64
	// DataBytes is the size of the server's databases (0: not known): data
	// that fits in memory and data that does not need different memory and
	// I/O settings.
	DataBytes int64
	// Live is the target server's pg_settings, when one is reachable: advice
	// is validated against its ranges and shows its current values. nil: the
	// catalog's ranges are used.
	Live map[string]settings.Live
}

// Recommendation is one line of advice.
type Recommendation struct {
	Name     string        `json:"name"`
	Value    string        `json:"value"`
	Current  string        `json:"current,omitempty"` // the server's value now, when a server was read
	Reason   string        `json:"reason"`
	Risk     settings.Risk `json:"risk"`
	RiskText string        `json:"risk_text"`
	Adjusted string        `json:"adjusted,omitempty"` // why the value differs from what the rule wanted
	// OS is the machine-wide change this setting needs, in an experiment
	// plan's os: form ('advise --format os-plan'): huge pages for a large
	// shared_buffers.
	OS map[string]string `json:"os,omitempty"`
}

// Advice is the advisor's output.
type Advice struct {
	Major       int              `json:"major"`
	Host        host.Host        `json:"host"`
	Workload    string           `json:"workload"`
	Connections int              `json:"connections"`
	ValidatedBy string           `json:"validated_by"` // "pg_settings of the server" or "pgoltp's catalog"
	Items       []Recommendation `json:"settings"`
	Notes       []string         `json:"notes,omitempty"`
}

// Settings returns the advice as name → value.
func (a Advice) Settings() map[string]string {
	out := make(map[string]string, len(a.Items))
	for _, r := range a.Items {
		out[r.Name] = r.Value
	}
	return out
}

const (
	kB = int64(1024)
	mB = 1024 * kB
	gB = 1024 * mB
)

// Advise turns the host, the workload and the server into recommended
// settings. Every recommendation carries its reason and its risk class; none
// is below PostgreSQL's minimum or above its maximum for the version at hand;
// settings the version does not have are left out. It never recommends a
// setting that costs durability.
func Advise(in AdviseInput) (Advice, error) {
	if in.Major == 0 {
		in.Major = NewestMajor
	}
	if in.Workload == "" {
		in.Workload = WorkloadOLTP
	}
	if in.Host.RAM < 256*mB {
		return Advice{}, fmt.Errorf("%s of memory is too little to advise on (at least 256MB)", host.HumanBytes(in.Host.RAM))
	}
	if in.Host.CPUs <= 0 {
		in.Host.CPUs = 1
	}
	a := Advice{Major: in.Major, Host: in.Host, Workload: in.Workload, Connections: in.Connections, ValidatedBy: "pgoltp's catalog"}
	if in.Live != nil {
		a.ValidatedBy = "pg_settings of the server"
	}
	conns := in.Connections
	if conns <= 0 {
		conns = 100
		a.Notes = append(a.Notes, "connections not given: per-connection memory assumes 100 (pass --connections)")
	}
	c := &adviceContext{in: in, ram: in.Host.RAM, cpus: in.Host.CPUs, conns: conns}
	for _, area := range adviceAreas {
		area.rule(c)
	}
	a.Items = finish(c.recs, in.Major, in.Live, &a.Notes)
	if in.DataBytes > in.Host.RAM {
		a.Notes = append(a.Notes, fmt.Sprintf("the data (%s) is larger than memory (%s): the workload is I/O-bound, reads per transaction and the cache hit ratio in the run's report say how much; storage and read-ahead matter more than any memory setting here ('pgoltp doctor')",
			host.HumanBytes(in.DataBytes), host.HumanBytes(in.Host.RAM)))
	}
	return a, nil
}

// adviceContext is what the per-area rules read (the input, with defaults
// filled in) and the recommendations they add.
type adviceContext struct {
	in            AdviseInput
	ram           int64
	cpus          float64
	conns         int   // connections, or the assumed 100
	sharedBuffers int64 // set by adviseMemory, read by later rules
	recs          []Recommendation
}

func (c *adviceContext) add(name, value, reason string) {
	c.recs = append(c.recs, Recommendation{Name: name, Value: value, Reason: reason})
}

// adviceAreas are the advisor's rules, one per area, in the order their
// recommendations are listed (memory first: later areas read its
// shared_buffers).
var adviceAreas = []struct {
	area string
	rule func(*adviceContext)
}{
	{"memory", adviseMemory},
	{"wal and checkpoints", adviseWAL},
	{"background writer", adviseBackgroundWriter},
	{"autovacuum", adviseAutovacuum},
	{"group commit", adviseGroupCommit},
	{"i/o", adviseIO},
	{"cpu", adviseCPU},
}

// adviseMemory sizes the memory areas; it sets c.sharedBuffers, which later
// rules read.
func adviseMemory(c *adviceContext) {
	sb := c.ram / 4
	sbWhy := "25% of the " + host.HumanBytes(c.ram) + " PostgreSQL may use: the OS cache holds the rest, and double caching beyond ~40% stops paying"
	if c.ram < 1*gB {
		sb = c.ram * 15 / 100
		sbWhy = "15% of " + host.HumanBytes(c.ram) + ": on a small machine backends and the OS need the rest"
	}
	if sb >= 2*gB {
		sb = roundDown(sb, 128*mB)
	} else {
		sb = roundDown(sb, 16*mB)
	}
	sb, sbWhy = fitData(c, sb, sbWhy)
	c.sharedBuffers = sb
	c.add("shared_buffers", mem(sb), sbWhy)
	c.add("effective_cache_size", mem(roundDown(c.ram*3/4, 16*mB)),
		"75% of memory: what shared_buffers plus the OS cache can hold; steers the planner to index scans, allocates nothing")
	rest := c.ram - sb
	wm := clampInt(roundDown(rest/4/int64(c.conns), mB), 4*mB, 64*mB)
	c.add("work_mem", mem(wm), fmt.Sprintf("a quarter of the memory left after shared_buffers, shared by %d connections; OLTP sorts are small, so capped at 64MB", c.conns))
	c.add("maintenance_work_mem", mem(clampInt(roundDown(c.ram/16, 64*mB), 64*mB, 2*gB)),
		"1/16 of memory (64MB..2GB): faster VACUUM and index builds; only a few run at once")
	if c.in.Connections > 0 {
		c.add("max_connections", strconv.Itoa(c.in.Connections+10),
			fmt.Sprintf("%d workload connections plus room for monitoring and superuser slots; every slot costs shared memory", c.in.Connections))
	}
	c.recs = append(c.recs, hugePages(c.in.Host, sb))
}

// fitData adjusts shared_buffers to the data's size when it is known: data
// that fits in 40% of memory with room to grow is held whole (every read a
// hit, no evictions); data larger than memory is read from disk whatever
// shared_buffers holds, so it stays at its share and the advice says why.
func fitData(c *adviceContext, sb int64, why string) (int64, string) {
	data := c.in.DataBytes
	switch {
	case data <= 0:
		return sb, why
	case data > c.ram:
		return sb, why + "; the data (" + host.HumanBytes(data) + ") is larger than memory, so reads go to disk whatever shared_buffers holds: a larger one would only take the OS cache's memory"
	case data*5/4 > sb && data*5/4 <= c.ram*2/5:
		fit := roundUp(data*5/4, 128*mB)
		return fit, "the whole data (" + host.HumanBytes(data) + ", plus 25% to grow) fits in 40% of the " + host.HumanBytes(c.ram) + ": hold all of it, so no read goes to the OS cache and nothing is evicted"
	}
	return sb, why + "; it holds all the data (" + host.HumanBytes(data) + ")"
}

// adviseWAL sizes WAL and checkpoints. A checkpoint is requested once WAL since the last
// one exceeds max_wal_size / (1 + checkpoint_completion_target)
// (xlog.c, CalculateCheckpointSegments); requested checkpoints come early
// and multiply full-page images.
func adviseWAL(c *adviceContext) {
	const timeout = 15 * 60
	const cct = 0.9
	if c.sharedBuffers >= 2*gB {
		c.add("wal_buffers", "64MB", "with shared_buffers this large, the automatic 16MB cap makes committing backends write WAL themselves during bursts")
	}
	if c.in.WALBytesPerSecond > 0 {
		need := c.in.WALBytesPerSecond * timeout * (1 + cct) * 1.25
		mw := clampInt(int64(math.Ceil(need/float64(gB)))*gB, 1*gB, math.MaxInt32*mB)
		c.add("max_wal_size", mem(mw), fmt.Sprintf("measured %s/s of WAL × %ds checkpoint_timeout × (1 + %.1f completion target) + 25%%: checkpoints stay timed, not requested",
			host.HumanBytes(int64(c.in.WALBytesPerSecond)), timeout, cct))
		c.add("min_wal_size", mem(mw/4), "a quarter of max_wal_size kept for recycling, so bursts do not create new WAL files")
	} else {
		mw := int64(2 * gB)
		switch {
		case c.ram > 64*gB:
			mw = 32 * gB
		case c.ram > 16*gB:
			mw = 16 * gB
		case c.ram > 4*gB:
			mw = 8 * gB
		}
		c.add("max_wal_size", mem(mw), "no measured WAL rate, so sized from memory; run 'pgoltp advise --measure-wal 60s' during a run to size it from real WAL volume. Needs that much free disk in pg_wal")
		c.add("min_wal_size", mem(mw/4), "a quarter of max_wal_size kept for recycling, so bursts do not create new WAL files")
	}
	c.add("checkpoint_timeout", settings.FormatDuration(timeout), "fewer checkpoints write fewer full-page images after each one; crash recovery replays at most ~15 minutes of WAL")
	c.add("checkpoint_completion_target", strconv.FormatFloat(cct, 'f', 1, 64), "spread checkpoint writes over 90% of the interval instead of bursting")
	if c.in.Major >= 15 {
		v, why := "lz4", "compress full-page images with lz4: less WAL to write and fsync for little CPU"
		if l, ok := c.in.Live["wal_compression"]; ok && !contains(l.Enum, "lz4") {
			v, why = "pglz", "compress full-page images (this server is built without lz4, so pglz, which costs more CPU)"
		}
		if c.cpus <= 2 {
			why += "; with few CPUs check the gain with 'pgoltp experiment'"
		}
		c.add("wal_compression", v, why)
	} else {
		c.add("wal_compression", "on", "compress full-page images: less WAL to write and fsync for some CPU")
	}
}

// adviseBackgroundWriter has the background writer clean buffers ahead of
// the backends, so that they do not write dirty pages themselves on eviction.
func adviseBackgroundWriter(c *adviceContext) {
	c.add("bgwriter_lru_maxpages", "1000", "let the background writer clean up to 1000 buffers per round, so backends rarely write evicted pages themselves")
	c.add("bgwriter_lru_multiplier", "4", "clean ahead of 4× the recent buffer demand")
	c.add("bgwriter_delay", "100ms", "run the background writer twice as often as the default 200ms")
}

// adviseAutovacuum keeps autovacuum up with OLTP updates, which make dead
// rows fast; keeping up keeps HOT updates possible and indexes small.
func adviseAutovacuum(c *adviceContext) {
	avw := clampInt(int64(math.Round(c.cpus/2)), 3, 8)
	c.add("autovacuum_max_workers", strconv.FormatInt(avw, 10), "half the CPUs (3..8) so large and small hot tables are vacuumed at the same time")
	naptime := "30s"
	if c.in.HotRows {
		naptime = "10s" // tiny tables updated by every transaction (pgbench_branches, pgbench_tellers)
	}
	c.add("autovacuum_naptime", naptime, "hot tables bloat within a minute under OLTP updates; look at them more often")
	c.add("autovacuum_vacuum_scale_factor", "0.05", "vacuum a table after 5% of its rows are dead instead of 20%: keeps free space for HOT updates")
	c.add("autovacuum_analyze_scale_factor", "0.02", "keep statistics fresh on large, growing tables (order lines, history)")
	costLimit := "2000"
	if c.in.Host.Storage == host.StorageHDD {
		costLimit = "800"
	}
	c.add("autovacuum_vacuum_cost_limit", costLimit, "the default 200 page budget per round throttles vacuum far below what "+c.in.Host.Storage+" storage sustains")
}

// adviseGroupCommit: with more committers than CPUs, waiting briefly lets
// several commits share one WAL flush. Durable: nothing is acknowledged early.
// The wait is half a flush (PostgreSQL's documentation gives half of
// pg_test_fsync's 8kB flush as the starting point): measured when the
// host's flush was timed, else guessed from the storage class. A longer
// wait than the flush itself only idles the committers.
func adviseGroupCommit(c *adviceContext) {
	// Below this a flush is cheaper than the shortest sleep the kernel
	// gives (its timer slack is 50µs): nothing to share.
	const minGroupFlush = 50 * time.Microsecond
	if c.conns < int(2*c.cpus) {
		return
	}
	flush := c.in.Host.Flush
	if flush <= 0 && c.in.Host.Storage == host.StorageNVMe || flush > 0 && flush < minGroupFlush {
		return
	}
	delay, why := 200, "about half an "+c.in.Host.Storage+" flush"
	switch {
	case flush > 0:
		delay = max(10, int(flush.Microseconds()/2/10*10))
		why = "half the " + host.ShortDuration(flush) + " this storage takes to flush an 8kB write (measured)"
	case c.in.Host.Storage == host.StorageHDD:
		delay = 1000
	}
	c.add("commit_delay", strconv.Itoa(delay), fmt.Sprintf("%d connections on %.3g CPUs commit concurrently; waiting %s lets commits share it (durable; prove it with 'pgoltp experiment')", c.conns, c.cpus, why))
	c.add("commit_siblings", "5", "only delay when at least 5 other transactions are active")
}

// adviseIO sets the planner costs and I/O concurrency for the storage.
func adviseIO(c *adviceContext) {
	if c.in.Host.Storage != host.StorageHDD {
		c.add("random_page_cost", "1.1", "random reads cost about as much as sequential ones on "+c.in.Host.Storage)
		conc := "200"
		if c.in.Host.Storage == host.StorageNVMe {
			conc = "256"
		}
		c.add("effective_io_concurrency", conc, "flash serves many reads at once; lets bitmap heap scans (and on 18 the read stream) prefetch")
		c.add("maintenance_io_concurrency", conc, "the same for VACUUM and index builds")
	} else {
		c.add("effective_io_concurrency", "2", "a single spindle gains little from more prefetch")
	}
	if c.in.Major >= 18 {
		method, why := "worker", "asynchronous I/O through worker processes: works everywhere, the default"
		if l, ok := c.in.Live["io_method"]; ok && contains(l.Enum, "io_uring") && c.in.Host.Storage == host.StorageNVMe {
			method, why = "io_uring", "NVMe and a server built with liburing: io_uring issues I/O without extra processes"
		}
		c.add("io_method", method, why)
		if method == "worker" {
			c.add("io_workers", strconv.FormatInt(clampInt(int64(c.cpus/4), 3, 32), 10), "a quarter of the CPUs (at least the default 3) to carry asynchronous reads")
		}
	}
}

// adviseCPU sets what depends on the CPU count.
func adviseCPU(c *adviceContext) {
	c.add("jit", "off", "JIT compilation costs milliseconds that sub-millisecond OLTP statements never earn back")
	if c.cpus > 8 {
		n := strconv.Itoa(int(c.cpus))
		c.add("max_worker_processes", n, "one background worker slot per CPU")
		c.add("max_parallel_workers", n, "parallel workers may use every CPU")
	}
	c.add("track_io_timing", "on", "I/O timings in pg_stat_* let 'pgoltp doctor' tell I/O waits from CPU; cheap on modern clocks")
}

// hugePages recommends huge_pages from the shared memory the server will need
// (shared_buffers plus ~3% and 64MB of other structures, roughly what
// shared_memory_size reports) against what the kernel has reserved.
func hugePages(h host.Host, sb int64) Recommendation {
	r := Recommendation{Name: "huge_pages", Value: "try"}
	page := h.HugePage
	if page == 0 {
		page = 2 * mB
	}
	need := (sb + sb*3/100 + 64*mB + page - 1) / page
	if sb >= 2*gB {
		r.OS = map[string]string{"hugepages": "auto"}
	}
	switch {
	case sb < 2*gB:
		r.Reason = "shared memory is small; use huge pages if the kernel has them, start anyway if not"
	case h.HugePagesTotal >= need:
		r.Value = "on"
		r.Reason = fmt.Sprintf("%d huge pages are reserved and ~%d are needed: insist on them (fewer TLB misses, no per-backend page tables)", h.HugePagesTotal, need)
	default:
		r.Reason = fmt.Sprintf("reserve ~%d huge pages of %s (sysctl vm.nr_hugepages=%d; 'pgoltp doctor' computes the exact number from a running server): smaller page tables per backend, fewer TLB misses", need, host.HumanBytes(page), need)
	}
	return r
}

// finish keeps the recommendations the version has, clamps them into the
// server's (or catalog's) range, labels their risk, and fills in the current
// value when a server was read.
func finish(recs []Recommendation, major int, live map[string]settings.Live, notes *[]string) []Recommendation {
	out := make([]Recommendation, 0, len(recs))
	for _, r := range recs {
		cat, inCatalog := settings.Lookup(r.Name, major)
		rng := cat.Range
		if l, ok := live[r.Name]; ok {
			rng = l.Range
			r.Current = l.Value()
		} else if live != nil || !inCatalog {
			*notes = append(*notes, fmt.Sprintf("%s left out: PostgreSQL %d does not have it", r.Name, major))
			continue
		}
		if err := rng.Check(r.Value); err != nil {
			v, why, ok := clampToRange(rng, r.Value)
			if !ok {
				*notes = append(*notes, fmt.Sprintf("%s = %s left out: %v", r.Name, r.Value, err))
				continue
			}
			r.Adjusted = why + " (wanted " + r.Value + ")"
			r.Value = v
		}
		r.Risk, r.RiskText = settings.LabelFor(major, r.Name, r.Value)
		if r.Risk.Unsafe() {
			// The advisor's contract: never recommend what costs durability.
			*notes = append(*notes, fmt.Sprintf("%s = %s left out: %s", r.Name, r.Value, r.Risk))
			continue
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Risk.Rank() > out[j].Risk.Rank() })
	return out
}

// clampToRange moves a numeric value into [Min, Max].
func clampToRange(r settings.Range, value string) (string, string, bool) {
	if r.Kind != settings.Integer && r.Kind != settings.Real {
		return "", "", false
	}
	n, err := settings.ToUnit(value, r.Unit)
	if err != nil {
		return "", "", false
	}
	switch {
	case n < r.Min:
		return r.Format(r.Min), "raised to PostgreSQL's minimum", true
	case n > r.Max:
		return r.Format(r.Max), "lowered to PostgreSQL's maximum", true
	}
	return "", "", false
}

func mem(b int64) string { return settings.FormatMemory(b / kB) }

func roundDown(n, to int64) int64 {
	if n < to {
		return n
	}
	return n / to * to
}

func roundUp(n, to int64) int64 { return roundDown(n+to-1, to) }

func clampInt(n, lo, hi int64) int64 {
	return max(lo, min(hi, n))
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
