package collect

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/prometheus/procfs"
)

// osFacts is the one-time snapshot of the OS settings that change how a
// database performs: writeback (vm.dirty_*), swapping, transparent and
// explicit huge pages, the I/O scheduler and read-ahead of each disk, the CPU
// and memory the machine (or its cgroup) has, and the kernel.
func osFacts(disks map[string]bool) []Fact {
	var out []Fact
	add := func(name, value string) {
		if value != "" {
			out = append(out, Fact{Scope: "os", Name: name, Value: value})
		}
	}
	add("kernel", readSys("/proc/sys/kernel/osrelease"))
	add("cpus", fmt.Sprint(runtime.NumCPU()))
	if fs, err := procfs.NewFS("/proc"); err == nil {
		if mi, err := fs.Meminfo(); err == nil && mi.MemTotalBytes != nil {
			add("memory", humanize.IBytes(*mi.MemTotalBytes))
		}
		add("cpu_model", cpuModel(fs))
	}
	for _, k := range []string{"dirty_ratio", "dirty_background_ratio", "dirty_bytes", "dirty_background_bytes",
		"dirty_expire_centisecs", "dirty_writeback_centisecs", "swappiness", "overcommit_memory", "nr_hugepages", "zone_reclaim_mode"} {
		add("vm."+k, readSys("/proc/sys/vm/"+k))
	}
	add("transparent_hugepage", bracketed(readSys("/sys/kernel/mm/transparent_hugepage/enabled")))
	add("transparent_hugepage.defrag", bracketed(readSys("/sys/kernel/mm/transparent_hugepage/defrag")))
	names := make([]string, 0, len(disks))
	for d := range disks {
		names = append(names, d)
	}
	sort.Strings(names)
	for _, d := range names {
		q := filepath.Join("/sys/block", d, "queue")
		add("disk."+d+".scheduler", bracketed(readSys(filepath.Join(q, "scheduler"))))
		add("disk."+d+".read_ahead_kb", readSys(filepath.Join(q, "read_ahead_kb")))
		if readSys(filepath.Join(q, "rotational")) == "1" {
			add("disk."+d+".rotational", "yes")
		}
	}
	// cgroup v2 limits of this process (the server's are the same when it runs
	// in the same container, which is the case that matters).
	if cg := cgroupDir(); cg != "" {
		add("cgroup.cpu.max", readSys(filepath.Join(cg, "cpu.max")))
		add("cgroup.memory.max", readSys(filepath.Join(cg, "memory.max")))
		add("cgroup.io.max", strings.ReplaceAll(readSys(filepath.Join(cg, "io.max")), "\n", "; "))
	}
	return out
}

// bracketed picks the active choice out of "always [madvise] never".
func bracketed(s string) string {
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return s
}

func cgroupDir() string {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			dir := filepath.Join("/sys/fs/cgroup", rest)
			if _, err := os.Stat(dir); err == nil {
				return dir
			}
		}
	}
	return ""
}
