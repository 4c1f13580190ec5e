// Package driver holds the workload-independent parts of driving a database:
// the shuffled deck of transaction cards, keying and think times, the rate
// schedule, the connection pool that is separate from terminals (with
// reconnects and the outages they close), the classification of errors into
// retryable / connection-lost / other, and the live progress line.
//
// It knows PostgreSQL only through pgx connections and nothing about TPC-C or
// TPC-B: workloads (internal/workload/...) run their terminal loops with these
// parts.
package driver
