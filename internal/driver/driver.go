// Package driver holds the workload-independent parts of driving a database:
// the shuffled deck of transaction cards, the connection pool that is
// separate from terminals (with reconnects and the outages they close), the
// classification of errors into retryable / connection-lost / other, and the
// format of the live progress line.
//
// It knows PostgreSQL only through pgx connections and nothing about TPC-C or
// TPC-B: workloads (internal/workload/...) run their terminal loops with these
// parts. The measurement of a run (its clock, series, histograms, progress,
// budget and pacing) is internal/measure's.
package driver
