// Package collect samples what happens around a benchmark run: the OS (from
// /proc and /sys through prometheus/procfs) and PostgreSQL 10-18 (the
// cumulative statistics views, wait events from pg_stat_activity,
// pg_stat_statements, table sizes and bloat, pg_settings), every second by
// default, on a connection of its own.
//
// It measures what it costs: the CPU time of its own OS thread and of the
// server backend that answers it, which must stay under 1% of one core at the
// default interval (see bench/RESULTS.md, "Collectors").
//
// It knows nothing about workloads or where samples are kept: Stop returns
// plain Samples for the store and the report.
package collect
