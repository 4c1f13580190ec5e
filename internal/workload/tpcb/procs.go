package tpcb

import "github.com/pgoltp/pgoltp/internal/driver"

// UseCPUs sets the driver's CPUs (GOMAXPROCS) as pgbench -j does: -j is
// pgbench's thread count, here the event loops, each on its own thread, plus
// one for the rest of the process (progress, aggregation), so both tools use
// the same number of CPUs.
func (o RunOptions) UseCPUs() { _ = driver.UseCPUs(o.Jobs+1, o.Clients) }
