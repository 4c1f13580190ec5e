// Package tpcb holds pgoltp's pgbench-compatible TPC-B workload: the four
// pgbench_* tables exactly as `pgbench -i` creates them (schema.go), a
// parallel binary-COPY loader (load.go, copydata.go), pgbench's three
// built-in scripts (script.go), the driver that runs them with pgbench's
// -c/-j/-R/--latency-limit/--max-tries/-P/-t/-T semantics (run.go), the
// pgbench-shaped summary (summary.go) and the balance/history consistency
// check (check.go).
//
// Clients run like pgbench's: each job (-j) is an event loop over its
// clients' sockets, writing the protocol messages of the scripts by hand
// (eventloop.go, wire.go, rawsys.go), which costs the same CPU per
// transaction as pgbench. Over TLS, or on request, each client is a
// goroutine going through pgconn instead (client.go).
//
// A database initialised by `pgbench -i -s N` runs under Run, and one loaded
// by Load runs under pgbench. The package knows nothing about the CLI, the
// managed cluster or the results store: it takes a DSN and options and
// returns plain structs.
package tpcb
