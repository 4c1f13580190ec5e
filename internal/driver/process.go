package driver

import (
	"time"

	"github.com/prometheus/procfs"
)

// ProcessUsage is what the driver process itself has used so far, from
// /proc/self/stat and /proc/self/status: benchmarks report the driver's cost
// next to the throughput it produced.
type ProcessUsage struct {
	CPU     time.Duration // user + system
	PeakRSS int64         // bytes (VmHWM)
}

// ReadProcessUsage reads the current process's usage; zero values where
// /proc is not available.
func ReadProcessUsage() ProcessUsage {
	var u ProcessUsage
	p, err := procfs.Self()
	if err != nil {
		return u
	}
	if st, err := p.Stat(); err == nil {
		u.CPU = time.Duration(st.CPUTime() * float64(time.Second))
	}
	if s, err := p.NewStatus(); err == nil {
		u.PeakRSS = int64(s.VmHWM)
	}
	return u
}
