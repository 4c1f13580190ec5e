// Package pgbuild compiles PostgreSQL 15 from this machine's Debian source
// package into the cache (pgoltp build, issue 28): a named build with its
// compiler, CFLAGS and configure options, contrib's pg_stat_statements,
// pgstattuple and pg_prewarm, a record and a manifest (cluster.SealBuild).
// A build is made in a directory of its own and renamed into place only
// when complete. It must not know the lab, runs, workloads or the CLI.
package pgbuild
