// Package pgbench is `pgoltp pgbench`: a drop-in pgbench (issue 27). It reads
// pgbench's command line with pgbench's own semantics and messages, runs
// pgbench's initialization mode, and formats a run's results the way pgbench
// prints them. The script language lives in internal/pgbench/lang; the run
// engine is the measurement core's.
package pgbench
