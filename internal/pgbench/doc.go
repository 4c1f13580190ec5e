// Package pgbench is `pgoltp pgbench`: a drop-in pgbench (issue 27). It reads
// pgbench's command line with pgbench's own semantics and messages, runs
// pgbench's initialization mode, runs benchmarks, and formats a run's
// results the way pgbench prints them. The script language lives in
// internal/pgbench/lang.
//
// The run engine (engine.go, bench.go, loop.go, client.go, transaction.go,
// commands.go, sql.go, pipeline.go, wire.go, hijack.go, txlogfile.go) is
// pgbench's: each thread (-j) is a loop that owns its clients' sockets and
// waits for all of them in one poll; a client's code is straight-line and
// runs as a coroutine that yields to its loop when it would wait. The
// connections are opened by pgconn and then taken over: statements are
// written and answers read by hand, from reused buffers (a transaction
// allocates nothing). The threads also own what pgbench's do: the
// script-choice, throttle and sample generators and the log file, so that
// --random-seed gives pgbench's numbers. Its figures are pgbench's own
// (SimpleStats over microseconds), so the summary, progress and log
// formatters print them unchanged; -R draws
// pgbench's Poisson gaps from the thread's throttle generator rather than
// measure.Poisson, whose gaps come from math/rand.
//
// The engine is pgoltp's one: `tpcb run` is this engine running the
// built-in script (drive.go, reconnect.go). A caller other than pgbench's
// command line runs it through Drive, which adds hooks where pgbench has
// its own way, none of which pgbench's own runs set: the caller's open
// connections (one server per client: reads on standbys), its clock and
// -T deadline, a schedule per client (measure.Poisson, --rate phases) in
// place of -R's, a budget of transactions over all clients
// (--stop-at-txns), a sink per client that gets every statement and
// transaction (tpcb counts them into metrics.Local for measure.Meter), and
// a reconnector given a client whose connection was lost (it reconnects in
// a goroutine while the client sleeps in its loop, then the client goes
// on). pgbench's own figures are still kept beside the sink, so that a
// transaction costs the same either way.
package pgbench
