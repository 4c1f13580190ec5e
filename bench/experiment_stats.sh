#!/usr/bin/env bash
# bench/experiment_stats.sh: what the paired experiment statistics resolve
# from 2 pairs of 8 s runs on this machine (issue 17).
#
# On a fresh managed cluster (its own lab), TPC-B scale 2 with 4 clients, two
# steps against the server's defaults, 2 fixed pairs each (B S B S B):
#   - synchronous_commit=off (unsafe, --allow-unsafe): expected "better
#     (unsafe: ...)" with an interval excluding zero
#   - commit_delay=0, the value it already has (a no-op): expected "no
#     measurable difference (effects smaller than ±X% cannot be seen with this
#     noise)"
#
# Usage: bench/experiment_stats.sh
# Env:   PGOLTP=path/to/binary (default: built from this checkout)
#        DUR=8s PAIRS=2 SCALE=2 CLIENTS=4 PREWARM=2s
# Prints the full text report; the verdict lines and MDEs are the result.
set -euo pipefail

DUR=${DUR:-8s}
PAIRS=${PAIRS:-2}
SCALE=${SCALE:-2}
CLIENTS=${CLIENTS:-4}
PREWARM=${PREWARM:-2s}
. "$(dirname "$0")/lib.sh"
lab_work
build_pgoltp "$WORK/pgoltp"
trap remove_lab_work EXIT

cat >"$WORK/plan.yaml" <<PLAN
name: experiment statistics
workload: {kind: tpcb, scale: $SCALE, clients: $CLIENTS}
duration: $DUR
repetitions: $PAIRS
prewarm: $PREWARM
steps:
  - name: async commit
    settings: {synchronous_commit: 'off'}
  - name: no-op
    settings: {commit_delay: 0}
PLAN

echo "# bench/experiment_stats.sh $(date -u +%FT%TZ) tpcb scale=$SCALE clients=$CLIENTS pairs=$PAIRS dur=$DUR prewarm=$PREWARM"
echo "# host: $(nproc) CPUs, load $(load_average)"
"$PGOLTP" cluster up --lab "$LAB" >/dev/null
"$PGOLTP" experiment "$WORK/plan.yaml" --lab "$LAB" --allow-unsafe
echo "# done $(date -u +%FT%TZ), load $(load_average)"
