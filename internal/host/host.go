package host

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
)

// Storage classes the advisor distinguishes.
const (
	StorageHDD  = "hdd"
	StorageSSD  = "ssd"
	StorageNVMe = "nvme"
)

// Host is what the advisor needs to know about the machine PostgreSQL runs on:
// the resources it may really use (the cgroup limit, when lower than the host)
// and the kind of storage under its data.
type Host struct {
	RAM      int64   `json:"ram_bytes"`      // memory PostgreSQL may use
	CPUs     float64 `json:"cpus"`           // CPUs PostgreSQL may use (a cgroup quota can be fractional)
	Storage  string  `json:"storage"`        // hdd | ssd | nvme
	HugePage int64   `json:"huge_page_size"` // default huge page size in bytes (0: unknown)
	// HugePagesTotal is vm.nr_hugepages as seen in /proc/meminfo.
	HugePagesTotal int64 `json:"huge_pages_total"`
	// Flush is the measured time of an 8kB write and fdatasync on the
	// data's storage (MeasureFlush); 0 when not measured.
	Flush time.Duration `json:"flush_ns,omitempty"`
	Notes []string      `json:"notes"` // where each number came from
}

// DetectHost reads the host from /proc and /sys: MemTotal and the CPU count,
// lowered to the cgroup v2 (memory.max, cpu.max) or v1 (memory.limit_in_bytes,
// cpu.cfs_quota_us) limits of this process, and the storage class of the block
// device under dataPath ("/" when empty).
func DetectHost(dataPath string) Host {
	h := Host{CPUs: float64(runtime.NumCPU())}
	mem := ReadMeminfo()
	h.RAM = mem.Total
	h.HugePage = mem.HugePageSize
	h.HugePagesTotal = mem.HugePagesTotal
	h.Notes = append(h.Notes, fmt.Sprintf("memory: host MemTotal %s", HumanBytes(h.RAM)))
	h.Notes = append(h.Notes, fmt.Sprintf("cpus: %d online", runtime.NumCPU()))
	if lim, where, ok := cgroupMemoryLimit(); ok && lim < h.RAM {
		h.RAM = lim
		h.Notes = append(h.Notes, fmt.Sprintf("memory: limited to %s by %s", HumanBytes(lim), where))
	}
	if q, where, ok := cgroupCPULimit(); ok && q < h.CPUs {
		h.CPUs = q
		h.Notes = append(h.Notes, fmt.Sprintf("cpus: limited to %.2g by %s", q, where))
	}
	if dataPath == "" {
		dataPath = "/"
	}
	storage, note := StorageClass(dataPath)
	h.Storage = storage
	h.Notes = append(h.Notes, note)
	return h
}

// candidates lists the files to try for a controller file: the process's own
// cgroup and its ancestors (a limit anywhere above applies), and the mount
// root (inside a container the namespace root is the container's cgroup).
func candidates(mounts []string, path, file string) []string {
	var out []string
	for _, m := range mounts {
		p := path
		for {
			out = append(out, filepath.Join(m, p, file))
			if p == "/" || p == "." || p == "" {
				break
			}
			p = filepath.Dir(p)
		}
	}
	return out
}

func cgroupMemoryLimit() (int64, string, bool) {
	paths := cgroupPaths()
	best, where := int64(math.MaxInt64), ""
	consider := func(files []string, parse func(string) (int64, bool)) {
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			if n, ok := parse(strings.TrimSpace(string(b))); ok && n < best {
				best, where = n, f
			}
		}
	}
	parse := func(s string) (int64, bool) {
		if s == "max" {
			return 0, false
		}
		n, err := strconv.ParseInt(s, 10, 64)
		// cgroup v1 reports "no limit" as a huge page-rounded number.
		return n, err == nil && n > 0 && n < 1<<60
	}
	if p, ok := paths[""]; ok {
		consider(candidates([]string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}, p, "memory.max"), parse)
	}
	if p, ok := paths["memory"]; ok {
		consider(candidates([]string{"/sys/fs/cgroup/memory"}, p, "memory.limit_in_bytes"), parse)
	}
	return best, where, where != ""
}

func cgroupCPULimit() (float64, string, bool) {
	paths := cgroupPaths()
	best, where := math.Inf(1), ""
	if p, ok := paths[""]; ok {
		for _, f := range candidates([]string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}, p, "cpu.max") {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			fs := strings.Fields(string(b))
			if len(fs) != 2 || fs[0] == "max" {
				continue
			}
			q, err1 := strconv.ParseFloat(fs[0], 64)
			per, err2 := strconv.ParseFloat(fs[1], 64)
			if err1 == nil && err2 == nil && per > 0 && q/per < best {
				best, where = q/per, f
			}
		}
	}
	for _, ctrl := range []string{"cpu", "cpu,cpuacct"} {
		p, ok := paths["cpu"]
		if !ok {
			break
		}
		for _, f := range candidates([]string{filepath.Join("/sys/fs/cgroup", ctrl)}, p, "cpu.cfs_quota_us") {
			qb, err1 := os.ReadFile(f)
			pb, err2 := os.ReadFile(filepath.Join(filepath.Dir(f), "cpu.cfs_period_us"))
			if err1 != nil || err2 != nil {
				continue
			}
			q, _ := strconv.ParseFloat(strings.TrimSpace(string(qb)), 64)
			per, _ := strconv.ParseFloat(strings.TrimSpace(string(pb)), 64)
			if q > 0 && per > 0 && q/per < best {
				best, where = q/per, f
			}
		}
	}
	return best, where, where != ""
}

// StorageClass classifies the disk under path: nvme by name, hdd when the
// kernel says rotational, ssd otherwise.
func StorageClass(path string) (string, string) {
	name, queue, err := BlockDevice(path)
	if err != nil {
		return StorageSSD, fmt.Sprintf("storage: %s: %v; assuming ssd, pass --storage", path, err)
	}
	if strings.HasPrefix(name, "nvme") {
		return StorageNVMe, fmt.Sprintf("storage: %s holds %s (NVMe)", name, path)
	}
	rot, _ := os.ReadFile(filepath.Join(queue, "rotational"))
	if strings.TrimSpace(string(rot)) == "1" {
		note := fmt.Sprintf("storage: %s holds %s and reports rotational=1", name, path)
		if strings.HasPrefix(name, "vd") || strings.HasPrefix(name, "xvd") {
			note += " (virtual disks often do regardless of the media: pass --storage if it is SSD)"
		}
		return StorageHDD, note
	}
	return StorageSSD, fmt.Sprintf("storage: %s holds %s (non-rotational)", name, path)
}

// HumanBytes writes a byte count for people in binary units ("1.5 GiB"),
// as the report and the collected facts do.
func HumanBytes(n int64) string {
	if n < 0 {
		return "unknown"
	}
	return humanize.IBytes(uint64(n))
}
