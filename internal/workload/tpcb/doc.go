// Package tpcb holds pgoltp's pgbench-compatible TPC-B workload: the four
// pgbench_* tables exactly as `pgbench -i` creates them (schema.go), a
// parallel binary-COPY loader (load.go, copydata.go), pgbench's three
// built-in scripts (script.go), the driver that runs them with pgbench's
// -c/-j/-R/--latency-limit/--max-tries/-P/-t/-T semantics (run.go), the
// pgbench-shaped summary (summary.go) and the balance/history consistency
// check (check.go).
//
// Clients run like pgbench's: on Linux each job (-j) is an event loop over
// its clients' sockets, sending the scripts' protocol messages encoded by
// pgproto3 into reused buffers (eventloop_linux.go, wire.go,
// rawsys_linux.go), which costs the same CPU per transaction as pgbench.
// Over TLS, on request, or on other systems, each client is a goroutine
// going through pgconn instead (client.go). Both engines schedule and count
// through the same bookkeeping (bookkeeping.go), so retries, failures,
// skips, late transactions and lag mean the same in either.
//
// A database initialised by `pgbench -i -s N` runs under Run, and one loaded
// by Load runs under pgbench. The package knows nothing about the CLI, the
// managed cluster or the results store: it takes a DSN and options and
// returns plain structs.
package tpcb
