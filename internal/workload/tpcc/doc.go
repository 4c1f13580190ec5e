// Package tpcc holds the TPC-C workload (standard revision 5.11; digest in
// shared/TPCC.md): the schema (clause 1.3), the random-data rules and the
// initial population (clauses 2.1.6, 4.3), the parallel COPY loader, the
// consistency checker (clause 3.3.2), and the five transactions with their
// driver loop (clause 2).
//
// Files are grouped by concern: schema*.go (table definitions, indexes),
// rand*.go (NURand, strings, last names), generate*.go (row generators of the
// initial population), load*.go (the parallel loader), check*.go (the
// consistency conditions), meta*.go (the pgoltp_meta table that records a
// load), and txn_*.go, run*.go, deck*.go, audit*.go for the driver.
//
// The package knows PostgreSQL (through pgx) and nothing about the CLI, the
// managed cluster, metrics storage or reports: callers pass a DSN and options
// and get plain result structs back.
package tpcc
