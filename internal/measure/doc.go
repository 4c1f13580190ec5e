// Package measure is the one measurement core every workload runs on: the
// run's clock and window (ramp-up, then the measured duration, or a budget of
// transactions), the per-interval drain of the workers' metrics into the
// per-second series, the measured and whole-run histograms, the live
// progress line, windows of exact histograms, the per-interval callback (an
// explicit option: the recorder stores each interval as it arrives), and
// pacing (when a worker's next transaction is due: a rate's schedule, TPC-C's
// think times, pgbench's Poisson --rate), from which latency counts.
//
// A workload keeps only what is its own: its transactions, its deck and its
// engine (the tpcb event loop). Its workers record into
// metrics.Local (the hot path, untouched here) and take tickets from a
// Budget; a Meter drains them once per interval off the hot path. A new
// workload (a pgbench script: many named transaction types, weights) names
// its types as the recorder's kinds and gets the series, the histograms,
// the progress line and the recorder's hourly intervals for nothing.
//
// It is its own package, not part of driver: driver owns the connections a
// workload drives (pool, reconnects, error classes, decks, think times),
// measure owns the accounting of a run, and a workload that needs no pool
// (ledger, the tpcb event loop) needs only this. It sits beside driver and
// metrics, imports metrics, and knows no workload, no PostgreSQL, the
// store or the command line.
package measure
