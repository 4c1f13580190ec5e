package tpcb

// CPUs is how many CPUs (GOMAXPROCS) the driver needs to use what pgbench -j
// uses: -j is pgbench's thread count, here the event loops, each on its own
// thread, plus one for the rest of the process (progress, aggregation). The
// command applies it (driver.UseCPUs) before the run.
func (o RunOptions) CPUs() int { return o.Jobs + 1 }
