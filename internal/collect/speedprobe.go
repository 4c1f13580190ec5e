package collect

import (
	"runtime"
	"time"
)

// probeUnit is the fixed unit of work the speed probe times: integer
// mixing with a data dependency, no memory traffic, about 2 ms of one core
// on a 2020s server CPU, so that a probe a second costs the measured run
// about 0.2% of a core.
const probeUnit = 1 << 21

type probeSample struct {
	at   time.Time
	took time.Duration // thread CPU time of one unit
}

// SpeedProbe runs the unit once and returns the CPU time it took on this
// thread: the same work takes longer when the CPU runs slower (frequency,
// a sibling hyperthread, a neighbour's cache traffic); steal and waiting for
// a CPU do not count, since only this thread's CPU time is read.
func SpeedProbe() time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0 := threadCPU()
	x := uint64(0x9e3779b97f4a7c15)
	for range probeUnit {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	took := threadCPU() - c0
	probeSink = x
	return took
}

// probeSink keeps the compiler from removing the unit's loop.
var probeSink uint64

// probe times the unit once a second until the meter stops.
func (m *CPUMeter) probe() {
	defer close(m.probeDone)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			took := SpeedProbe()
			m.mu.Lock()
			m.probes = append(m.probes, probeSample{at: time.Now(), took: took})
			m.mu.Unlock()
		}
	}
}
