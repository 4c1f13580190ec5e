// Package group lets several pgoltp processes drive one server as one run:
// a group of n parts (pgoltp tpcc run --group NAME --part k/n), each driving
// its own range of warehouses (TPC-B: branches), started together and merged
// into one result.
//
// The results store is the coordinator, so groups work wherever the store
// does: a PostgreSQL database (--results-dsn) that parts on several machines
// share, or the lab's SQLite file for parts on this machine.
//
//   - member.go: a part registers (measuring its clock skew against the
//     store's server, and with the parameters every part must share:
//     params.go refuses a part whose differ from the first registered
//     part's), waits until all n parts are there (or one of them dies:
//     then the wait ends at once), and starts its ramp-up at the agreed
//     wall-clock time; it beats a heartbeat while it waits and runs, and
//     the last part to finish runs the one consistency check.
//   - view.go: the group as one result: throughput summed over the parts'
//     common measured window, latency percentiles from the exactly merged HDR
//     histograms, and one line per part.
//
// It knows workloads only through internal/workload (never TPC-C or TPC-B).
package group
