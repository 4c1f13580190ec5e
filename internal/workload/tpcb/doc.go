// Package tpcb holds pgoltp's pgbench-compatible TPC-B workload: the four
// pgbench_* tables exactly as `pgbench -i` creates them (schema.go), a
// parallel binary-COPY loader (load.go, copydata.go), pgbench's three
// built-in scripts (script.go), the driver that runs them with pgbench's
// -c/-j/-R/--latency-limit/--max-tries/-P/-t/-T semantics (run.go), the
// pgbench-shaped summary (summary.go) and the balance/history consistency
// check (check.go).
//
// Clients run like pgbench's: on Linux each job (-j) is an event loop over
// its clients' sockets, sending the scripts' protocol messages from reused
// buffers (eventloop_linux.go over internal/pgwire, the low level it shares
// with pgoltp pgbench's engine), which costs the same CPU per transaction
// as pgbench.
// Over TLS, on request, or on other systems, each client is a goroutine
// going through pgconn instead (client.go). Both engines schedule and count
// through the same bookkeeping (bookkeeping.go), so retries, failures,
// skips, late transactions and lag mean the same in either.
//
// A database initialised by `pgbench -i -s N` runs under Run, and one loaded
// by Load runs under pgbench. The package knows nothing about the CLI, the
// managed cluster or the results store: it takes a DSN and options and
// returns plain structs.
//
// One engine, not two (issue 27): what remains. The socket takeover, raw
// system calls, CancelRequest and wire messages are shared (pgwire); the
// transaction loop is not yet internal/pgbench's engine running the
// built-in script. That engine lacks, as hooks a caller could set:
//   - a measurement sink: it counts into pgbench's SimpleStats under a
//     per-client mutex and its log files; tpcb needs each statement and
//     transaction in a metrics.Local (kinds per statement, lag, the
//     retried/failed/skipped/late counters) drained by measure.Meter for
//     the series, windows, OnInterval and --stop-at-txns (measure.Budget);
//   - per-client connection configs (reads.go sends select-only clients to
//     standbys) where it dials one config for all;
//   - a lost connection handed to a reconnector that records the outage and
//     the in-doubt transaction and lets the client go on; pgbench aborts the
//     client, and a pgx reconnect inside a coroutine would block its loop;
//   - a start given by the caller (the group start gate, the run's clock
//     and -T deadline shared with the meter) and measure.Poisson schedules
//     with --rate phases, where it draws pgbench's -R gaps itself;
//   - --group/--part key ranges (space): the built-in scripts draw
//     random(1, 100000 * :scale); a part needs its own ranges, as -D
//     variables or a script per part, and the draws (math/rand/v2 PCG from
//     --seed today, pgbench's PRNG then) would change every stored run's
//     sequence of keys.
//
// Each is a change to pgbench's hot path that has to keep its TAP suite and
// its zero allocations per transaction; with them, eventloop_linux.go,
// bookkeeping.go's scheduling and the goroutine engine (client.go, kept
// for TLS and for clients after a reconnect) can go.
package tpcb
