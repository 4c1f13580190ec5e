package driver

import (
	"os"
	"runtime/pprof"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// StartCPUProfile writes a Go CPU profile of the driver to path until stop;
// with path "" it does nothing.
func StartCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, problem.Wrap(err, "pass a writable --cpuprofile path", "cannot create the CPU profile")
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, problem.Wrap(err, "", "cannot start the CPU profile")
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
