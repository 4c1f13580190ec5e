//go:build !unix

package collect

import "time"

// threadCPU: no per-thread CPU clock here, so the collectors' own cost
// reads as 0.
func threadCPU() time.Duration { return 0 }
