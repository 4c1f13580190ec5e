package collect

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/procfs"
)

// userHZ is the unit of the kernel's per-process CPU times in /proc (procfs
// assumes the same).
const userHZ = 100

// cpuEvery is how often the CPU meter reads /proc: a run's measured window
// is cut out of the samples by interpolation, so its ends need not fall on
// a sample.
const cpuEvery = 250 * time.Millisecond

// CPUMeter measures the CPU time the server (its postmaster and every child,
// live or already exited) and the driver (this process) use while a run
// goes: work per CPU-second, unlike throughput, does not change when a
// neighbour steals the CPU, only what a transaction costs does.
type CPUMeter struct {
	postmaster int // 0: the server is not on this host; only the driver is measured
	mu         sync.Mutex
	samples    []cpuSample
	probes     []probeSample
	stop, done chan struct{}
	probeDone  chan struct{}
}

type cpuSample struct {
	at             time.Time
	server, driver time.Duration
	host           hostLoad
}

// CPUUse is what a CPUMeter measured over a run's window.
type CPUUse struct {
	Server, Driver time.Duration // CPU time used (Server 0: not on this host)
	// Steal is the CPU time the hypervisor gave to other guests, summed
	// over the host's CPUs (/proc/stat): a neighbour's share.
	Steal time.Duration
	// Probe is the CPU time the same fixed unit of work took, once a
	// second (SpeedProbe): how fast the CPU was, second by second.
	Probe []time.Duration
	// Others is the CPU time the host spent on processes that are neither
	// the server nor the driver (the neighbours in this host or guest);
	// only known when the server runs here (Server > 0), else 0.
	Others time.Duration
	// RunQueue is the mean number of threads running or ready to run on
	// the host (procs_running, ours included) over the window.
	RunQueue float64
	// DiskRead is the bytes the host read from its disks over the window
	// (/proc/vmstat pgpgin): pages the host reclaimed and the run re-read.
	DiskRead float64
}

// ServerPID is the postmaster of the server conn is connected to when it
// runs on this host (its backend is visible in /proc as a postgres
// process), else 0.
func ServerPID(ctx context.Context, conn *pgx.Conn) int {
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return 0
	}
	p, err := procfs.NewProc(backend)
	if err != nil {
		return 0
	}
	if comm, err := p.Comm(); err != nil || comm != "postgres" {
		return 0 // a pid of another host's (or container's) namespace
	}
	st, err := p.Stat()
	if err != nil {
		return 0
	}
	return st.PPID
}

// StartCPU starts measuring; postmaster is ServerPID's answer (0: driver only).
func StartCPU(postmaster int) *CPUMeter {
	m := &CPUMeter{postmaster: postmaster, stop: make(chan struct{}), done: make(chan struct{}), probeDone: make(chan struct{})}
	m.sample()
	go m.probe()
	go func() {
		defer close(m.done)
		t := time.NewTicker(cpuEvery)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				m.sample()
			}
		}
	}()
	return m
}

// Stop ends the measurement and returns what the server and the driver
// used, the steal time and the speed probes from..to (the measured window;
// zero times: the whole measurement).
func (m *CPUMeter) Stop(from, to time.Time) CPUUse {
	close(m.stop)
	<-m.done
	<-m.probeDone
	m.sample()
	return m.Within(from, to)
}

// Within is what Stop returns, for any window of a stopped meter (a
// switchback run's blocks).
func (m *CPUMeter) Within(from, to time.Time) CPUUse {
	m.mu.Lock()
	defer m.mu.Unlock()
	if from.IsZero() || to.IsZero() {
		from, to = m.samples[0].at, m.samples[len(m.samples)-1].at
	}
	a, b := cpuAt(m.samples, from), cpuAt(m.samples, to)
	u := CPUUse{Server: b.server - a.server, Driver: b.driver - a.driver, Steal: b.host.steal - a.host.steal,
		DiskRead: b.host.readBytes - a.host.readBytes, RunQueue: runQueue(m.samples, from, to)}
	if m.postmaster == 0 {
		u.Server = 0
	}
	ours := u.Server + u.Driver // the probe included: it is ours, not a neighbour's
	for _, p := range m.probes {
		if !p.at.Before(from) && !p.at.After(to) {
			u.Probe = append(u.Probe, p.took)
			u.Driver -= p.took // the probe is the meter's cost, not the driver's
		}
	}
	if u.Server > 0 {
		u.Others = max(0, b.host.busy-a.host.busy-ours)
	}
	return u
}

// runQueue is the mean procs_running of the samples from..to (the nearest
// sample when none falls inside).
func runQueue(samples []cpuSample, from, to time.Time) float64 {
	var sum float64
	n := 0
	for _, s := range samples {
		if !s.at.Before(from) && !s.at.After(to) {
			sum += s.host.running
			n++
		}
	}
	if n == 0 {
		return cpuAt(samples, from).host.running
	}
	return sum / float64(n)
}

func (m *CPUMeter) sample() {
	s := cpuSample{at: time.Now(), driver: ownCPU(os.Getpid(), false), host: readHostLoad()}
	if m.postmaster != 0 {
		s.server = treeCPU(m.postmaster)
	}
	m.mu.Lock()
	m.samples = append(m.samples, s)
	m.mu.Unlock()
}

// cpuAt is the cumulative CPU times at t, interpolated between the samples
// around it (clamped to the first and last).
func cpuAt(samples []cpuSample, t time.Time) cpuSample {
	if !t.After(samples[0].at) {
		return samples[0]
	}
	for i := 1; i < len(samples); i++ {
		a, b := samples[i-1], samples[i]
		if t.After(b.at) {
			continue
		}
		f := float64(t.Sub(a.at)) / float64(max(b.at.Sub(a.at), 1))
		lerp := func(x, y time.Duration) time.Duration { return x + time.Duration(f*float64(y-x)) }
		host := hostLoad{steal: lerp(a.host.steal, b.host.steal), busy: lerp(a.host.busy, b.host.busy),
			running: a.host.running, readBytes: a.host.readBytes + f*(b.host.readBytes-a.host.readBytes)}
		return cpuSample{at: t, server: lerp(a.server, b.server), driver: lerp(a.driver, b.driver), host: host}
	}
	return samples[len(samples)-1]
}

// treeCPU is the CPU time used by pid and all its children: their own, and
// that of the children they reaped (cutime, cstime), so that a backend that
// exits moves its CPU into the postmaster's count instead of losing it.
func treeCPU(pid int) time.Duration {
	total := ownCPU(pid, true)
	for _, child := range children(pid) {
		total += ownCPU(child, true)
	}
	return total
}

// ownCPU is pid's user and system CPU time, with its reaped children's
// when withChildren; 0 when /proc cannot tell.
func ownCPU(pid int, withChildren bool) time.Duration {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0
	}
	st, err := p.Stat()
	if err != nil {
		return 0
	}
	ticks := float64(st.UTime + st.STime)
	if withChildren {
		ticks += float64(st.CUTime + st.CSTime)
	}
	return time.Duration(ticks / userHZ * float64(time.Second))
}

// children are pid's child processes: from /proc/PID/task/*/children when
// the kernel has it, else by scanning every process's parent.
func children(pid int) []int {
	var out []int
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err == nil {
		found := false
		for _, t := range tasks {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + t.Name() + "/children")
			if err != nil {
				continue
			}
			found = true
			for _, f := range strings.Fields(string(b)) {
				if n, err := strconv.Atoi(f); err == nil {
					out = append(out, n)
				}
			}
		}
		if found {
			return out
		}
	}
	procs, err := procfs.AllProcs()
	if err != nil {
		return nil
	}
	for _, p := range procs {
		if st, err := p.Stat(); err == nil && st.PPID == pid {
			out = append(out, p.PID)
		}
	}
	return out
}
