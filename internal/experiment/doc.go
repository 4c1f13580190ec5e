// Package tune holds pgoltp's tuning: the advisor (rules that turn a host and
// a workload into settings, each with its reason and risk), the doctor (an
// audit of a running server and its OS, each finding with evidence, reason,
// fix and confidence), experiments (A/B runs of settings against a baseline
// with confidence intervals and verdicts) and the durability audit (crash a
// server mid-run and count acknowledged commits that are gone).
//
// Setting metadata comes from internal/settings and nowhere else. Workloads are
// reached through internal/workload's interface, so that this package does not
// depend on how TPC-C or TPC-B are driven (the crash audit uses the built-in
// ledger workload for its log of acknowledged commits); the server through the
// Server interface, which *cluster.Cluster satisfies.
package experiment
