// Package script is the registry's workload of pgbench scripts (kind
// script): the user's own files and pgbench's built-ins, with weights and
// -D variables, run by pgoltp pgbench's engine in this process
// (internal/pgbench). Experiments, searches, version studies and groups take
// it like any other workload; a run's result comes from pgbench's summary
// and per-transaction logs, as a recorded pgbench run's does
// (internal/workload/command): the series and HDR histograms per script,
// and -r's per-statement mean latencies as figures
// (workload.StatementName).
//
// A script is code: \shell and \setshell run commands on this machine as
// pgbench does.
package script
