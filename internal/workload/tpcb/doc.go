// Package tpcb holds pgoltp's pgbench-compatible TPC-B workload: the four
// pgbench_* tables exactly as `pgbench -i` creates them (schema.go), a
// parallel binary-COPY loader (load.go), pgbench's three built-in scripts
// (script.go) executed per client over the simple, extended or prepared
// protocol (client.go), the driver that runs them with pgbench's -c/-j/-R/
// --latency-limit/--max-tries/-P/-t/-T semantics (run.go), the pgbench-shaped
// summary (summary.go) and the balance/history consistency check (check.go).
//
// A database initialised by `pgbench -i -s N` runs under Run, and one loaded
// by Load runs under pgbench. The package knows nothing about the CLI, the
// managed cluster or the results store: it takes a DSN and options and
// returns plain structs.
package tpcb
