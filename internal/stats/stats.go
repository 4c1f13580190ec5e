// Package stats holds the statistics that experiments ('pgoltp experiment')
// and the tuner use to judge a change against its neighbouring baseline runs:
// paired log ratios, within-run uncertainty from a block bootstrap of the
// per-second samples, their combination into one interval, the minimum
// detectable effect and the sequential stop rule.
//
// Pure functions of numbers: it knows nothing of databases, settings or
// workloads, and every random draw comes from a fixed seed, so the same runs
// always give the same verdict.
package stats
