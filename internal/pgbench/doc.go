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
package pgbench
