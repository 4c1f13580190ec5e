package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pgoltp/pgoltp/internal/host"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// osChecks audits the host under a local server: huge pages, THP, dirty
// writeback, swappiness, the I/O scheduler and read-ahead of the data disk,
// and memory overcommit.
func (s *doctorState) osChecks(backendPID int, dataDir string) {
	postmaster := host.ParentPID(backendPID)
	s.hugePages(postmaster)
	s.thp()
	s.dirtyWriteback()
	s.swappiness()
	s.disk(dataDir)
	s.overcommit(postmaster)
}

// hugePages compares the huge pages the server needs with what the kernel has
// reserved and whether the postmaster really got them. The need comes from
// shared_memory_size_in_huge_pages (15+) or, as the PostgreSQL documentation
// describes for older versions, from the postmaster's VmPeak.
func (s *doctorState) hugePages(postmaster int) {
	mem := host.ReadMeminfo()
	pageSize := mem.HugePageSize
	if pageSize == 0 {
		return
	}
	total, free, rsvd := mem.HugePagesTotal, mem.HugePagesFree, mem.HugePagesRsvd
	var need int64
	method := ""
	if l, ok := s.live["shared_memory_size_in_huge_pages"]; ok {
		if n, err := strconv.ParseInt(l.Setting, 10, 64); err == nil && n > 0 {
			need, method = n, "shared_memory_size_in_huge_pages"
		}
	}
	if peak := host.PeakVirtualMemory(postmaster); peak > 0 {
		byPeak := (int64(peak) + pageSize - 1) / pageSize
		if need == 0 {
			need, method = byPeak, fmt.Sprintf("postmaster VmPeak %s / %s", host.HumanBytes(int64(peak)), host.HumanBytes(pageSize))
		} else {
			method += fmt.Sprintf(" (postmaster VmPeak suggests %d)", byPeak)
		}
	}
	if need == 0 {
		return
	}
	used := host.UsesHugePages(postmaster)
	ev := fmt.Sprintf("needs %d huge pages of %s (%s); kernel has %d reserved, %d free, %d reserved-unused; huge_pages = %s; postmaster shared memory on huge pages: %v",
		need, host.HumanBytes(pageSize), method, total, free, rsvd, s.value("huge_pages"), used)
	sb, _ := settings.ToUnit(s.live["shared_buffers"].Value(), "B")
	sbBytes := int64(sb)
	switch {
	case used:
		s.add(Finding{ID: "huge-pages", Area: "os", Severity: SeverityOK, Title: "shared memory is on huge pages", Evidence: ev,
			Why: "fewer TLB misses and small page tables per backend", Fix: "none", Confidence: ConfidenceHigh})
	case sbBytes < 1*gB:
		s.add(Finding{ID: "huge-pages", Area: "os", Severity: SeverityInfo, Title: "no huge pages (shared memory is small)", Evidence: ev,
			Why: "with small shared memory the gain is small", Fix: fmt.Sprintf("if shared_buffers grows: sysctl vm.nr_hugepages=%d and huge_pages=on", need), Confidence: ConfidenceHigh})
	default:
		s.add(Finding{ID: "huge-pages", Area: "os", Severity: SeverityWarning, Title: "shared memory is not on huge pages", Evidence: ev,
			Why:        "every backend maps shared_buffers with 4kB pages: large page tables (memory), TLB misses (CPU)",
			Fix:        fmt.Sprintf("sysctl vm.nr_hugepages=%d (persist it in /etc/sysctl.d), then restart PostgreSQL with huge_pages=on so that a shortfall fails loudly", need),
			Confidence: ConfidenceHigh, OS: map[string]string{"hugepages": "auto"}})
	}
}

func (s *doctorState) thp() {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return
	}
	mode := selected(string(b))
	ev := "transparent_hugepage/enabled = " + mode
	if mode == "always" {
		s.add(Finding{ID: "thp", Area: "os", Severity: SeverityWarning, Title: "transparent huge pages are always on", Evidence: ev,
			Why:        "khugepaged compaction and THP faults stall backends unpredictably (latency spikes); PostgreSQL gains nothing from THP for shared memory",
			Fix:        "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled (or never), persisted via the kernel command line transparent_hugepage=madvise; use explicit huge pages instead",
			Confidence: ConfidenceMedium, OS: map[string]string{"transparent_hugepage.enabled": "madvise"}})
		return
	}
	s.add(Finding{ID: "thp", Area: "os", Severity: SeverityOK, Title: "transparent huge pages are not forced", Evidence: ev,
		Why: "no THP compaction stalls", Fix: "none", Confidence: ConfidenceHigh})
}

// dirtyWriteback checks how much dirty page cache may pile up before the
// kernel writes it back: a checkpoint's fsync then has to flush all of it.
func (s *doctorState) dirtyWriteback() {
	bg, bgRatio := host.SysctlInt("vm.dirty_background_bytes"), host.SysctlInt("vm.dirty_background_ratio")
	hard, hardRatio := host.SysctlInt("vm.dirty_bytes"), host.SysctlInt("vm.dirty_ratio")
	ram := host.ReadMeminfo().Total
	bgBytes, hardBytes := bg, hard
	bgHow, hardHow := "dirty_background_bytes", "dirty_bytes"
	if bg <= 0 {
		bgBytes, bgHow = ram*bgRatio/100, fmt.Sprintf("dirty_background_ratio %d%% of %s", bgRatio, host.HumanBytes(ram))
	}
	if hard <= 0 {
		hardBytes, hardHow = ram*hardRatio/100, fmt.Sprintf("dirty_ratio %d%% of %s", hardRatio, host.HumanBytes(ram))
	}
	ev := fmt.Sprintf("background writeback starts at %s (%s); writers block at %s (%s)", host.HumanBytes(bgBytes), bgHow, host.HumanBytes(hardBytes), hardHow)
	if bgBytes > 1*gB {
		s.add(Finding{ID: "dirty-writeback", Area: "os", Severity: SeverityWarning, Title: "gigabytes of dirty page cache can pile up", Evidence: ev,
			Why:        "the kernel starts writing late, so a checkpoint's fsync or a burst finds gigabytes to flush at once: I/O stalls and latency spikes",
			Fix:        "sysctl vm.dirty_background_bytes=268435456 vm.dirty_bytes=1073741824 (256MB / 1GB; smaller on HDD), persisted in /etc/sysctl.d",
			Confidence: ConfidenceMedium, OS: map[string]string{"vm.dirty_background_bytes": "268435456", "vm.dirty_bytes": "1073741824"}})
		return
	}
	s.add(Finding{ID: "dirty-writeback", Area: "os", Severity: SeverityOK, Title: "dirty writeback starts early", Evidence: ev,
		Why: "writeback is spread out", Fix: "none", Confidence: ConfidenceMedium})
}

func (s *doctorState) swappiness() {
	sw := host.SysctlInt("vm.swappiness")
	swap := host.ReadMeminfo().SwapTotal
	ev := fmt.Sprintf("vm.swappiness = %d, swap %s", sw, host.HumanBytes(swap))
	if swap > 0 && sw > 10 {
		s.add(Finding{ID: "swappiness", Area: "os", Severity: SeverityInfo, Title: "the kernel may swap PostgreSQL memory out", Evidence: ev,
			Why: "swapped-out shared buffers or backend memory turn memory accesses into disk reads",
			Fix: "sysctl vm.swappiness=1 (persisted in /etc/sysctl.d)", Confidence: ConfidenceLow, OS: map[string]string{"vm.swappiness": "1"}})
		return
	}
	s.add(Finding{ID: "swappiness", Area: "os", Severity: SeverityOK, Title: "swapping is not a concern", Evidence: ev,
		Why: "no swap, or a low swappiness", Fix: "none", Confidence: ConfidenceHigh})
}

// disk checks the I/O scheduler and read-ahead of the disk holding the data.
func (s *doctorState) disk(dataDir string) {
	if dataDir == "" {
		return
	}
	name, queue, err := host.BlockDevice(dataDir)
	if err != nil {
		s.d.Notes = append(s.d.Notes, "I/O scheduler and read-ahead not checked: "+err.Error())
		return
	}
	class, _ := host.StorageClass(dataDir)
	b, _ := os.ReadFile(filepath.Join(queue, "scheduler"))
	sched := selected(string(b))
	ev := fmt.Sprintf("%s (%s) holds %s, scheduler %s", name, class, dataDir, sched)
	switch {
	case sched == "":
	case class != host.StorageHDD && (sched == "bfq" || sched == "cfq"):
		s.add(Finding{ID: "io-scheduler", Area: "os", Severity: SeverityWarning, Title: "a fairness scheduler on flash storage", Evidence: ev,
			Why: "bfq/cfq spend CPU and add latency that flash does not need",
			Fix: fmt.Sprintf("echo none > /sys/block/%s/queue/scheduler (or mq-deadline), persisted with a udev rule", name), Confidence: ConfidenceMedium,
			OS: map[string]string{"block.scheduler": "none"}})
	case class == host.StorageHDD && sched == "none":
		s.add(Finding{ID: "io-scheduler", Area: "os", Severity: SeverityInfo, Title: "no I/O scheduler on a rotational disk", Evidence: ev,
			Why: "a spinning disk benefits from request sorting (virtual disks that only claim to rotate do not)",
			Fix: fmt.Sprintf("echo mq-deadline > /sys/block/%s/queue/scheduler", name), Confidence: ConfidenceLow,
			OS: map[string]string{"block.scheduler": "mq-deadline"}})
	default:
		s.add(Finding{ID: "io-scheduler", Area: "os", Severity: SeverityOK, Title: "the I/O scheduler fits the storage", Evidence: ev,
			Why: "no needless scheduling", Fix: "none", Confidence: ConfidenceMedium})
	}
	ra, err := os.ReadFile(filepath.Join(queue, "read_ahead_kb"))
	if err != nil {
		return
	}
	kb, _ := strconv.Atoi(strings.TrimSpace(string(ra)))
	raEv := fmt.Sprintf("%s read_ahead_kb = %d", name, kb)
	if kb > 1024 {
		s.add(Finding{ID: "read-ahead", Area: "os", Severity: SeverityInfo, Title: "large read-ahead on the data disk", Evidence: raEv,
			Why: "OLTP reads random 8kB pages; a read that triggers read-ahead brings in data nobody asked for and evicts cache (sequential scans and VACUUM do profit)",
			Fix: fmt.Sprintf("for pure OLTP: blockdev --setra %d /dev/%s (128kB); keep it large if the same server runs reports", 256, name), Confidence: ConfidenceLow,
			OS: map[string]string{"block.read_ahead_kb": "128"}})
		return
	}
	s.add(Finding{ID: "read-ahead", Area: "os", Severity: SeverityOK, Title: "read-ahead is moderate", Evidence: raEv,
		Why: "random reads are not inflated", Fix: "none", Confidence: ConfidenceLow})
}

// overcommit checks whether the OOM killer can hit PostgreSQL.
func (s *doctorState) overcommit(postmaster int) {
	mode := host.SysctlInt("vm.overcommit_memory")
	adj := host.OOMScoreAdj(postmaster)
	ev := fmt.Sprintf("vm.overcommit_memory = %d; postmaster oom_score_adj = %d", mode, adj)
	if mode == 2 {
		s.add(Finding{ID: "overcommit", Area: "os", Severity: SeverityOK, Title: "memory overcommit is strict", Evidence: ev,
			Why: "allocations fail cleanly instead of waking the OOM killer", Fix: "none", Confidence: ConfidenceHigh})
		return
	}
	s.add(Finding{ID: "overcommit", Area: "os", Severity: SeverityWarning, Title: "the OOM killer can kill PostgreSQL", Evidence: ev,
		Why:        "with heuristic overcommit, memory pressure makes the kernel kill a process; a killed backend makes the postmaster reset every connection and run crash recovery",
		Fix:        "on a dedicated server: sysctl vm.overcommit_memory=2 with vm.overcommit_ratio sized so RAM + swap covers PostgreSQL; at least start the postmaster with oom_score_adj -1000 (PG_OOM_ADJUST_FILE for backends)",
		Confidence: ConfidenceMedium})
}

// selected returns the bracketed choice of a sysfs list: "[mq-deadline]" in "none [mq-deadline] bfq".
func selected(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return s
}
