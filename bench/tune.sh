#!/usr/bin/env bash
# bench/tune.sh: how good `pgoltp tune` is (issue 13).
#
# On a fresh managed cluster (its own lab), starting from PostgreSQL's
# defaults, two searches of BUDGET trials each:
#   - TPC-C, WAREHOUSES warehouses, no-wait, CONNS connections
#   - TPC-B at SCALE (scale 50 is ~750MB: does not fit the default 128MB of
#     shared_buffers), CLIENTS clients
# Every measured run starts from a fresh load of the data (tune's --reload),
# refilled shared buffers and a checkpoint, so that runs compare settings,
# not database sizes or checkpoint phases.
# Each ends with the best configuration confirmed against the start, its gain
# over the start and over advise's configuration with 95% intervals (re-runs
# interleaved with the reference), and the per-setting ablation. The bar
# (issue 13): gain over the start ≥ advise's, and ≥ 1.1× advise's throughput
# (the "gain over advise's" line), both with intervals. Copy the two reports
# into bench/RESULTS.md.
#
# Usage: bench/tune.sh            (several hours with the defaults)
# Env:   PGOLTP=path/to/binary (default: built from this checkout)
#        PG=15 (the major of the managed cluster)
#        BUDGET=25 TRIAL=60s WAREHOUSES=10 CONNS=8 SCALE=50 CLIENTS=8 SEED=1
#        ONLY=tpcc|tpcb (one of the two)  KEEP=1 (keep the lab: runs, search states)
#        EXTRA="--confirm 1 --ablation 1" (more tune flags, e.g. for a quick check)
set -euo pipefail

BUDGET=${BUDGET:-25}
TRIAL=${TRIAL:-60s}
WAREHOUSES=${WAREHOUSES:-10}
CONNS=${CONNS:-8}
SCALE=${SCALE:-50}
CLIENTS=${CLIENTS:-8}
SEED=${SEED:-1}
PG=${PG:-15}
ONLY=${ONLY:-}
. "$(dirname "$0")/lib.sh"
lab_work
cleanup() {
  if [ -n "${KEEP:-}" ]; then
    echo "lab kept in $LAB" >&2
    return
  fi
  remove_lab_work
}
build_pgoltp "$WORK/pgoltp"
trap cleanup EXIT

"$PGOLTP" cluster up --lab "$LAB" --pg "$PG" >/dev/null
# The start is PostgreSQL's defaults: nothing set with ALTER SYSTEM.
"$PGOLTP" cluster psql --lab "$LAB" -- -XAtc "ALTER SYSTEM RESET ALL" >/dev/null

# A search whose best is not shown better exits 1 after its summary (--format
# refuses the unproven candidate): that is a result, and the next search runs.
refused() { echo "(tune exited $1: see the summary above)"; }
common=(--lab "$LAB" --budget "$BUDGET" --trial "$TRIAL" --seed "$SEED" --format conf ${EXTRA:-})
if [ "$ONLY" != tpcb ]; then
  echo "== TPC-C, $WAREHOUSES warehouses, no-wait, $CONNS connections: $BUDGET trials of $TRIAL"
  "$PGOLTP" tune "${common[@]}" --workload tpcc --warehouses "$WAREHOUSES" --conns "$CONNS" --objective tpmc || refused $?
fi
if [ "$ONLY" != tpcc ]; then
  echo "== TPC-B, scale $SCALE, $CLIENTS clients: $BUDGET trials of $TRIAL"
  "$PGOLTP" tune "${common[@]}" --workload tpcb --scale "$SCALE" --clients "$CLIENTS" --objective tps || refused $?
fi
echo "search states (every trial, baseline drift): $LAB/tune/*.json"
