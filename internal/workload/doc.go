// Package workload is what every benchmark workload offers to the rest of
// pgoltp: one small interface (load, run, check) and one workload-neutral
// Result (headline figures, latency histograms per transaction type, the
// per-interval series, per-second throughput, parameters, notes and the
// measured window). Recording, experiments, quickstart and reports use only
// this; they never name a particular workload.
//
// The workloads live in the packages below (tpcc, tpcb, ledger); the list of
// them is the one registry, internal/workload/registry, the only package that
// imports them all. This package must not know any workload, the results
// store, the collectors or the command line.
//
// Adding a workload (say a custom SQL script, "script"):
//
//  1. internal/workload/script: its schema, loader, transactions and checks,
//     and a type implementing Workload (Name, Prepare, Run returning a
//     *Result, Check), plus LayoutOptions if it honours layout options. Its
//     workers record into a metrics.Recorder; a measure.Meter gives the run
//     its clock, series, histograms, progress line and RunOptions.OnInterval
//     (see internal/workload/ledger, the smallest).
//  2. One entry in registry.go: {Kind: "script", Title: "script", ScaleFlag: "scale",
//     Uses: registry.Experiment, New: func(s registry.Spec) workload.Workload {...}}.
//     Experiment plans ("workload: {kind: script}") can then drive it, and
//     recorder.Run records it; with Search (a default Scale and Figure) tune
//     searches it, with Versions (and a Bench) compare-versions compares it.
//  3. cmd/pgoltp/script.go: its command with the workload's own flags, which
//     builds the workload and hands it to recorder.Run.
package workload
