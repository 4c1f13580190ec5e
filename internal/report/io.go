package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/pgoltp/pgoltp/internal/collect"
)

// ioPicture is a run's I/O in one paragraph, over its measured interval:
// whether the data fits in memory, how many pages each transaction read from
// outside shared buffers, the buffer cache hit ratio, and what the disk and
// the CPUs did about it. A tuner reads it first on data larger than memory
// (issue 32), where reads, not the CPU, set the pace.
type ioPicture struct {
	ReadsPerTxn float64 // blocks read from outside shared buffers (OS cache or disk) per transaction
	HitRatioPct float64 // shared buffers' hits over all block requests
	IowaitPct   float64 // of all CPU time
	DiskReadMBs float64 // all disks
	DiskReadIOs float64
	DataBytes   uint64 // the database, at the end (else the start)
	MemoryBytes uint64 // the machine's (or its cgroup's)
	has         map[string]bool
}

// ioMetrics are the collector's metrics the I/O paragraph reads.
var ioMetrics = []string{"pg.xact.commits_per_s", "pg.xact.rollbacks_per_s", "pg.blks.read_per_s", "pg.blks.hit_per_s",
	"pg.blks.hit_ratio_pct", "os.cpu.iowait_pct", "os.disk.read_mb_per_s", "os.disk.read_iops"}

// newIOPicture sums the collector's per-tick figures inside [from, to) (the
// whole run when from is zero); nil when the run has none.
func newIOPicture(s *collect.Samples, from, to time.Time) *ioPicture {
	if s == nil {
		return nil
	}
	in := func(at time.Time) bool {
		return from.IsZero() || (!at.Before(from) && (to.IsZero() || at.Before(to)))
	}
	// Only the metrics the paragraph uses: a run of days holds millions of points.
	sums, ticks := map[string]float64{}, map[string]map[time.Time]bool{}
	for _, m := range ioMetrics {
		ticks[m] = nil
	}
	for _, p := range s.Points {
		seen, used := ticks[p.Metric]
		if !used || !in(p.At) {
			continue
		}
		sums[p.Metric] += p.Value
		if seen == nil {
			seen = map[time.Time]bool{}
			ticks[p.Metric] = seen
		}
		seen[p.At] = true
	}
	mean := func(m string) float64 { return sums[m] / float64(max(len(ticks[m]), 1)) } // per tick, keys (disks) summed
	io := &ioPicture{has: map[string]bool{}}
	// Rates per second over ticks of one length: their sums are in proportion to the counts.
	if txns := sums["pg.xact.commits_per_s"] + sums["pg.xact.rollbacks_per_s"]; txns > 0 && ticks["pg.blks.read_per_s"] != nil {
		io.ReadsPerTxn, io.has["reads"] = sums["pg.blks.read_per_s"]/txns, true
	}
	if hit := sums["pg.blks.hit_per_s"]; ticks["pg.blks.hit_per_s"] != nil && hit+sums["pg.blks.read_per_s"] > 0 {
		io.HitRatioPct, io.has["hit"] = 100*hit/(hit+sums["pg.blks.read_per_s"]), true
	} else if ticks["pg.blks.hit_ratio_pct"] != nil { // runs stored before pg.blks.hit_per_s
		io.HitRatioPct, io.has["hit"] = mean("pg.blks.hit_ratio_pct"), true
	}
	if ticks["os.cpu.iowait_pct"] != nil {
		io.IowaitPct, io.has["iowait"] = mean("os.cpu.iowait_pct"), true
	}
	if ticks["os.disk.read_mb_per_s"] != nil {
		io.DiskReadMBs, io.DiskReadIOs, io.has["disk"] = mean("os.disk.read_mb_per_s"), mean("os.disk.read_iops"), true
	}
	for _, f := range s.Facts {
		switch {
		case f.Scope == "server" && (f.Name == "database_size_after" || f.Name == "database_size_before" && io.DataBytes == 0):
			io.DataBytes, _ = strconv.ParseUint(f.Value, 10, 64)
		case f.Scope == "os" && f.Name == "memory":
			io.MemoryBytes, _ = humanize.ParseBytes(f.Value)
		}
	}
	if len(io.has) == 0 {
		return nil
	}
	return io
}

// Text is the paragraph.
func (io *ioPicture) Text() string {
	var parts []string
	if io.DataBytes > 0 && io.MemoryBytes > 0 {
		ratio := float64(io.DataBytes) / float64(io.MemoryBytes)
		p := fmt.Sprintf("the database (%s) fits in memory (%.2f× its %s)", humanize.IBytes(io.DataBytes), ratio, humanize.IBytes(io.MemoryBytes))
		if ratio >= 1 {
			p = fmt.Sprintf("the database (%s) is larger than memory (%.2f× its %s): pages not in shared buffers come from the OS cache or the disk",
				humanize.IBytes(io.DataBytes), ratio, humanize.IBytes(io.MemoryBytes))
		}
		parts = append(parts, p)
	}
	if io.has["reads"] {
		parts = append(parts, fmt.Sprintf("%.1f blocks read per transaction from outside shared buffers", io.ReadsPerTxn))
	}
	if io.has["hit"] {
		parts = append(parts, fmt.Sprintf("buffer cache hit ratio %.2f%%", io.HitRatioPct))
	}
	if io.has["disk"] {
		parts = append(parts, fmt.Sprintf("disk reads %.1f MB/s (%.0f IO/s)", io.DiskReadMBs, io.DiskReadIOs))
	}
	if io.has["iowait"] {
		parts = append(parts, fmt.Sprintf("I/O wait %.1f%% of the CPUs' time", io.IowaitPct))
	}
	return "I/O over the measured interval: " + strings.Join(parts, "; ") + "."
}
