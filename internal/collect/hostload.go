package collect

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"time"

	"github.com/prometheus/procfs"
)

// The host's side of a run's covariates (issue 29 point 2): what the
// neighbours did while it ran, read from /proc beside the server's and the
// driver's CPU. Nothing here knows the server: the meter subtracts it.

// hostLoad is one reading of the host's counters.
type hostLoad struct {
	steal time.Duration // CPU time given to other guests, all CPUs
	busy  time.Duration // CPU time spent running anything (user, nice, system, irq, softirq), all CPUs
	// running is procs_running at the reading: threads running or ready
	// to run, ours included (the run queue).
	running float64
	// readBytes is what the host read from its block devices so far
	// (/proc/vmstat pgpgin, KiB): the page cache re-read after the host
	// reclaimed it between runs.
	readBytes float64
}

// readHostLoad reads /proc/stat and /proc/vmstat; a counter it cannot read
// is 0 (and the covariate is then constant: the adjustment leaves it out).
func readHostLoad() hostLoad {
	var h hostLoad
	if fs, err := procfs.NewDefaultFS(); err == nil {
		if st, err := fs.Stat(); err == nil {
			c := st.CPUTotal
			h.steal = seconds(c.Steal)
			h.busy = seconds(c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ)
			h.running = float64(st.ProcessesRunning)
		}
	}
	h.readBytes = 1024 * vmstat("pgpgin")
	return h
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// vmstat is one counter of /proc/vmstat (0: absent).
func vmstat(name string) float64 {
	b, err := os.ReadFile("/proc/vmstat")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := bytes.Cut(sc.Bytes(), []byte{' '})
		if ok && string(k) == name {
			n, _ := strconv.ParseFloat(string(v), 64)
			return n
		}
	}
	return 0
}
