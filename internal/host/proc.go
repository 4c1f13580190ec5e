package host

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/procfs"
)

// MemInfo is what advise and doctor read from /proc/meminfo: sizes in bytes,
// huge pages as counts. Zero where /proc is not available.
type MemInfo struct {
	Total, SwapTotal, HugePageSize               int64
	HugePagesTotal, HugePagesFree, HugePagesRsvd int64
}

// ReadMeminfo reads /proc/meminfo (zero values where it is not available).
func ReadMeminfo() MemInfo {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return MemInfo{}
	}
	m, err := fs.Meminfo()
	if err != nil {
		return MemInfo{}
	}
	n := func(p *uint64) int64 {
		if p == nil {
			return 0
		}
		return int64(*p)
	}
	return MemInfo{
		Total: n(m.MemTotalBytes), SwapTotal: n(m.SwapTotalBytes), HugePageSize: n(m.HugepagesizeBytes),
		HugePagesTotal: n(m.HugePagesTotal), HugePagesFree: n(m.HugePagesFree), HugePagesRsvd: n(m.HugePagesRsvd),
	}
}

// SysctlInt reads a numeric sysctl ("vm.swappiness"), -1 when it cannot.
func SysctlInt(name string) int64 {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return -1
	}
	v, err := fs.SysctlInts(name)
	if err != nil || len(v) != 1 {
		return -1
	}
	return int64(v[0])
}

// IsLocalBackend reports whether the backend with this pid is a PostgreSQL
// process visible on this host: then the OS checks describe the server's OS.
func IsLocalBackend(pid int) bool {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return false
	}
	comm, err := p.Comm()
	return err == nil && (comm == "postgres" || comm == "postmaster")
}

// ParentPID is the parent of pid (the postmaster of a backend), 0 if unknown.
func ParentPID(pid int) int {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0
	}
	st, err := p.Stat()
	if err != nil {
		return 0
	}
	return st.PPID
}

// PeakVirtualMemory is the VmPeak of pid in bytes, 0 if unknown.
func PeakVirtualMemory(pid int) int64 {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0
	}
	s, err := p.NewStatus()
	if err != nil {
		return 0
	}
	return int64(s.VmPeak)
}

// OOMScoreAdj is /proc/<pid>/oom_score_adj, -1 if unknown. Read by hand:
// procfs does not parse it.
func OOMScoreAdj(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/oom_score_adj", pid))
	if err != nil {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return -1
	}
	return n
}

// UsesHugePages reports whether any mapping of the process uses pages larger
// than 4kB. Read by hand: procfs parses only smaps_rollup, which sums the
// mappings and drops KernelPageSize.
func UsesHugePages(pid int) bool {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "KernelPageSize:") && !strings.HasSuffix(strings.Join(strings.Fields(line), " "), " 4 kB") {
			return true
		}
	}
	return false
}

// cgroupPaths returns, per controller ("" for cgroup v2), this process's
// cgroup path from /proc/self/cgroup.
func cgroupPaths() map[string]string {
	out := map[string]string{}
	p, err := procfs.Self()
	if err != nil {
		return out
	}
	groups, err := p.Cgroups()
	if err != nil {
		return out
	}
	for _, g := range groups {
		if len(g.Controllers) == 0 {
			out[""] = g.Path
		}
		for _, c := range g.Controllers {
			out[c] = g.Path
		}
	}
	return out
}

// IsLocalServer reports whether the server behind conn runs on this host (its
// backend is visible in /proc): only then do host readings describe it.
func IsLocalServer(ctx context.Context, conn *pgx.Conn) bool {
	var pid int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		return false
	}
	return IsLocalBackend(pid)
}
