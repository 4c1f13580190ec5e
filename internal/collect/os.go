package collect

import (
	"os"
	"strings"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

// osSampler turns the kernel's cumulative counters (/proc/stat, diskstats,
// net/dev, pressure) into per-second rates between two ticks.
type osSampler struct {
	proc  procfs.FS
	block blockdevice.FS
	disks map[string]bool // whole block devices worth showing (not loop/ram)

	prevAt   time.Time
	prevCPU  procfs.CPUStat
	prevCtx  uint64
	prevDisk map[string]blockdevice.IOStats
	prevNet  map[string]procfs.NetDevLine
	prevPSI  map[string]uint64
	primed   bool
}

func newOSSampler() (*osSampler, error) {
	p, err := procfs.NewFS("/proc")
	if err != nil {
		return nil, err
	}
	b, err := blockdevice.NewFS("/proc", "/sys")
	if err != nil {
		return nil, err
	}
	s := &osSampler{proc: p, block: b, disks: map[string]bool{}}
	if devs, err := b.SysBlockDevices(); err == nil {
		for _, d := range devs {
			if !strings.HasPrefix(d, "loop") && !strings.HasPrefix(d, "ram") {
				s.disks[d] = true
			}
		}
	}
	return s, nil
}

// psiResources are the pressure files read each tick, and the line used.
var psiResources = []struct{ resource, line string }{
	{"cpu", "some"}, {"io", "some"}, {"io", "full"}, {"memory", "some"}, {"memory", "full"},
}

// sample appends this tick's OS points. The first call only primes the
// counters; rates need two readings.
func (s *osSampler) sample(at time.Time, add func(metric, key string, v float64)) {
	stat, err := s.proc.Stat()
	if err != nil {
		return
	}
	disks, _ := s.block.ProcDiskstats()
	netdev, _ := s.proc.NetDev()
	psi := map[string]uint64{}
	for _, r := range psiResources {
		st, err := s.proc.PSIStatsForResource(r.resource)
		if err != nil {
			continue
		}
		line := st.Some
		if r.line == "full" {
			line = st.Full
		}
		if line != nil {
			psi[r.resource+"_"+r.line] = line.Total
		}
	}

	// Gauges need no previous reading.
	add("os.run_queue", "", float64(stat.ProcessesRunning))
	add("os.blocked", "", float64(stat.ProcessesBlocked))
	if mi, err := s.proc.Meminfo(); err == nil {
		kb := func(p *uint64) float64 {
			if p == nil {
				return 0
			}
			return float64(*p) / 1024
		}
		add("os.mem.dirty_mb", "", kb(mi.Dirty))
		add("os.mem.writeback_mb", "", kb(mi.Writeback))
		add("os.mem.available_mb", "", kb(mi.MemAvailable))
		if mi.HugePagesTotal != nil && mi.HugePagesFree != nil {
			add("os.mem.hugepages_used", "", float64(*mi.HugePagesTotal-*mi.HugePagesFree))
		}
	}

	if s.primed {
		secs := at.Sub(s.prevAt).Seconds()
		if secs > 0 {
			s.cpu(stat.CPUTotal, add)
			add("os.context_switches_per_s", "", float64(stat.ContextSwitches-s.prevCtx)/secs)
			for _, d := range disks {
				prev, ok := s.prevDisk[d.DeviceName]
				if !ok || !s.disks[d.DeviceName] {
					continue
				}
				s.disk(d.DeviceName, prev, d.IOStats, secs, add)
			}
			for name, n := range netdev {
				prev, ok := s.prevNet[name]
				if !ok || n.RxBytes < prev.RxBytes || n.TxBytes < prev.TxBytes {
					continue
				}
				add("os.net.rx_mb_per_s", name, float64(n.RxBytes-prev.RxBytes)/secs/1e6)
				add("os.net.tx_mb_per_s", name, float64(n.TxBytes-prev.TxBytes)/secs/1e6)
			}
			for k, v := range psi {
				if prev, ok := s.prevPSI[k]; ok && v >= prev {
					// Totals are stall microseconds: their rate is the stalled share of time.
					add("os.psi."+k+"_pct", "", float64(v-prev)/1e4/secs)
				}
			}
		}
	}
	s.prevAt, s.prevCPU, s.prevCtx, s.prevPSI, s.primed = at, stat.CPUTotal, stat.ContextSwitches, psi, true
	s.prevDisk = make(map[string]blockdevice.IOStats, len(disks))
	for _, d := range disks {
		s.prevDisk[d.DeviceName] = d.IOStats
	}
	s.prevNet = netdev
}

// cpu adds the CPU shares of all cores together, in percent of the machine.
func (s *osSampler) cpu(now procfs.CPUStat, add func(string, string, float64)) {
	p := s.prevCPU
	user := (now.User + now.Nice) - (p.User + p.Nice)
	system := (now.System + now.IRQ + now.SoftIRQ) - (p.System + p.IRQ + p.SoftIRQ)
	iowait := now.Iowait - p.Iowait
	steal := now.Steal - p.Steal
	idle := now.Idle - p.Idle
	total := user + system + iowait + steal + idle
	if total <= 0 {
		return
	}
	add("os.cpu.user_pct", "", 100*user/total)
	add("os.cpu.system_pct", "", 100*system/total)
	add("os.cpu.iowait_pct", "", 100*iowait/total)
	add("os.cpu.steal_pct", "", 100*steal/total)
}

// disk adds one device's IOPS, throughput, await and utilisation, as iostat does.
func (s *osSampler) disk(name string, p, n blockdevice.IOStats, secs float64, add func(string, string, float64)) {
	if n.ReadIOs < p.ReadIOs || n.WriteIOs < p.WriteIOs {
		return
	}
	ios := float64((n.ReadIOs - p.ReadIOs) + (n.WriteIOs - p.WriteIOs))
	add("os.disk.read_iops", name, float64(n.ReadIOs-p.ReadIOs)/secs)
	add("os.disk.write_iops", name, float64(n.WriteIOs-p.WriteIOs)/secs)
	add("os.disk.read_mb_per_s", name, float64(n.ReadSectors-p.ReadSectors)*512/secs/1e6)
	add("os.disk.write_mb_per_s", name, float64(n.WriteSectors-p.WriteSectors)*512/secs/1e6)
	await := 0.0
	if ios > 0 {
		await = float64((n.ReadTicks-p.ReadTicks)+(n.WriteTicks-p.WriteTicks)) / ios
	}
	add("os.disk.await_ms", name, await)
	add("os.disk.util_pct", name, min(100, float64(n.IOsTotalTicks-p.IOsTotalTicks)/(secs*1000)*100))
}

// readSys reads a one-line /proc or /sys file, "" when it cannot.
func readSys(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
