#!/usr/bin/env bash
# bench/failover.sh: what a failover loses at each replication level (issue 31).
#
# In a lab of its own, one experiment plan with a failover: block runs the
# failover audit, each on a fresh cluster (a primary and one streaming standby),
# for every level (synchronous_commit on, remote_write, remote_apply with
# synchronous replication; asynchronous) and both ways of taking the primary
# away (SIGKILL of its postmaster; its replication cut in pg_hba.conf with the
# walsenders ended, then the old primary fenced after the promotion). Each
# audit runs the ledger for DUR before the kill and as long on the promoted
# standby and counts acknowledged commits the new primary lacks (by id).
#
# Usage: bench/failover.sh
# Env:   PGOLTP=path/to/binary (default: built from this checkout)
#        DUR=4s CLIENTS=4
# Prints the load average before and after, and the table.
set -euo pipefail

DUR=${DUR:-4s}
CLIENTS=${CLIENTS:-4}
. "$(dirname "$0")/lib.sh"
lab_work
build_pgoltp "$WORK/pgoltp"
trap remove_lab_work EXIT

cat >"$WORK/plan.yaml" <<PLAN
workload: {clients: $CLIENTS}
duration: $DUR
failover: {sync: [on, remote_write, remote_apply, off], kill: [primary, network]}
PLAN

"$PGOLTP" cluster up --lab "$LAB" >/dev/null # the binaries the audits' clusters use
echo "start $(date -u +%FT%TZ), load average $(load_average), $(nproc) CPUs, $("$PGOLTP" cluster status --lab "$LAB" | head -1)"
"$PGOLTP" cluster down --lab "$LAB" >/dev/null # idle: the audits run on clusters of their own
"$PGOLTP" experiment --lab "$LAB" "$WORK/plan.yaml"
echo "end $(date -u +%FT%TZ), load average $(load_average)"
