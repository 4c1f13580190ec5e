// Package tpcb holds pgoltp's pgbench-compatible TPC-B workload: the four
// pgbench_* tables exactly as `pgbench -i` creates them (schema.go), a
// parallel binary-COPY loader (load.go, copydata.go), pgbench's three
// built-in scripts (script.go), the driver that runs them with pgbench's
// -c/-j/-R/--latency-limit/--max-tries/-P/-t/-T semantics (run.go), the
// pgbench-shaped summary (summary.go) and the balance/history consistency
// check (check.go).
//
// Clients run on pgoltp pgbench's engine (internal/pgbench): one engine,
// not two (issue 27). The built-in script's text (script.go) is given to it
// with tpcb's own ways as hooks (engine.go, pgbench.Drive): the clients'
// connections, each to the server of its turn (reads.go: select-only
// clients on standbys); the run's clock and -T deadline, shared with the
// meter; each client's measure.Poisson schedule (--rate, --phases); the
// --stop-at-txns budget; a --part's own range of branches, as the script's
// \set bid; and a lost connection handed to the reconnector (reconnect.go),
// which records the outage and gives the client a new connection while
// its loop goes on with the others. Each client's statements and
// transactions come back through its sink (tally), which counts them into
// a metrics.Local for measure.Meter: kinds per statement, schedule lag,
// retried/failed/skipped/late. Each job (-j) is an event loop over its
// clients' sockets, as in pgbench, and over TLS each client gets a loop of
// its own. The keys come from pgbench's PRNG seeded by --seed, as pgoltp
// pgbench --random-seed draws them (runs stored before the one engine drew
// them from math/rand's PCG: the same distribution, another sequence).
//
// A database initialised by `pgbench -i -s N` runs under Run, and one loaded
// by Load runs under pgbench. The package knows nothing about the CLI, the
// managed cluster or the results store: it takes a DSN and options and
// returns plain structs.
package tpcb
