// Package collect samples what happens around a benchmark run: the OS (from
// /proc and /sys through prometheus/procfs) and PostgreSQL 10-18 (the
// cumulative statistics views, wait events from pg_stat_activity,
// pg_stat_statements, table sizes and bloat, pg_settings), every second by
// default, on a connection of its own.
//
// It owns pgoltp's knowledge of which statistics view or column a major has:
// every query whose SQL depends on the major is in its version matrix
// (Matrix), including the ones the doctor and the version study ask for by
// name (SQL), and the matrix test runs them all on every major.
//
// It measures what it costs: the CPU time of its own OS thread and of the
// server backend that answers it, which must stay under 1% of one core at the
// default interval (see bench/RESULTS.md, "Collectors").
//
// It knows nothing about workloads or where samples are kept: Stop returns
// plain Samples for the store and the report.
package collect
