// Package study compares PostgreSQL majors under the same workload: it
// translates settings whose names changed between majors, measures what a run
// did to the server (WAL, sizes, checkpoints, autovacuum, HOT updates) in a way
// each major supports, and summarises repeated runs per major with intervals.
// It runs each major in a managed cluster of its own (Study.Run), recording
// every run through internal/recorder. It knows nothing of the command line,
// and names no workload: the caller supplies it as a Bench.
package study
