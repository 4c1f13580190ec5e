// Package pgbench is `pgoltp pgbench`: a drop-in pgbench (issue 27). It reads
// pgbench's command line with pgbench's own semantics and messages, runs
// pgbench's initialization mode, runs benchmarks, and formats a run's
// results the way pgbench prints them. The script language lives in
// internal/pgbench/lang.
//
// The run engine (engine.go, bench.go, client.go, transaction.go,
// commands.go, sql.go, pipeline.go, txlogfile.go) gives each client a
// goroutine and its own connection, driven through pgconn; pgbench's
// threads (-j) remain as what they own: the script-choice, throttle and
// sample generators and the log file, so that --random-seed gives pgbench's
// numbers. Its figures are pgbench's own (SimpleStats over microseconds), so
// the summary, progress and log formatters print them unchanged; -R draws
// pgbench's Poisson gaps from the thread's throttle generator rather than
// measure.Poisson, whose gaps come from math/rand.
package pgbench
