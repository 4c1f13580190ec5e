// Package advise holds the advisor of `pgoltp advise`: rules that turn a host
// (internal/host), a workload profile and optionally a server's pg_settings
// into settings, each with its reason and risk, validated against the
// server's own ranges or pgoltp's catalog (internal/settings). It also reads
// what it needs from a server (ReadServer, MeasureWALRate) and digests a
// stored run (PastRun), which the doctor reads too.
package advise
