// Package experiment holds the experiments of `pgoltp experiment`: a plan
// (YAML: a baseline, steps of settings or data layout, repetitions) run as
// A/B pairs interleaved with the baseline, with confidence intervals, the
// smallest detectable effect and a verdict per step, and the saved report.
// It also warms the cache and checkpoints before a run (WarmCache,
// Checkpoint), which the search uses as well.
//
// Setting metadata comes from internal/settings and nowhere else. Workloads are
// reached through internal/workload's interface, so that this package does not
// depend on how TPC-C or TPC-B are driven (a plan's default workload is the
// built-in ledger); the server through restore.Server, which *cluster.Cluster
// satisfies, and settings are put back by internal/restore.
package experiment
