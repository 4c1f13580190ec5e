// Package study compares PostgreSQL majors under the same workload: it
// translates settings whose names changed between majors, measures what a run
// did to the server (WAL, sizes, checkpoints, autovacuum, HOT updates) in a way
// each major supports, and summarises repeated runs per major with intervals.
// It knows nothing of the command line or the results store.
package study
