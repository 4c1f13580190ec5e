#!/usr/bin/env bash
# bench/versions.sh: the shape of the seed's PostgreSQL 10 vs 15 table at small
# scale, with one command: `pgoltp compare-versions` runs pgbench's TPC-B on
# each major in its own managed cluster (LAB/pg10, LAB/pg15, ...), interleaved
# across repetitions, and prints throughput, latency percentiles (95% intervals
# across repetitions), database and index growth per million transactions, WAL
# per transaction, HOT updates, dead tuples, autovacuum runs, checkpoints and
# the top statements side by side. The text is kept in LAB/comparison.txt.
#
# Usage: bench/versions.sh [LAB]   (default: a fresh directory under /tmp)
# Env:   PGOLTP=path/to/binary (default: built from this checkout)
#        MAJORS=10,15 SCALE=10 CLIENTS=4 DUR=60s REPS=2 SETS="--set max_wal_size=1GB"
# The labs (and their clusters) are left for inspection: destroy them with
# 'pgoltp cluster destroy --lab LAB/pgNN'.
set -euo pipefail

MAJORS=${MAJORS:-10,15}
SCALE=${SCALE:-10}
CLIENTS=${CLIENTS:-4}
DUR=${DUR:-60s}
REPS=${REPS:-2}
SETS=${SETS:-}
. "$(dirname "$0")/lib.sh"
LAB=${1:-$(mktemp -d /tmp/pgoltp-versions-XXXXXX)}
mkdir -p "$LAB" # tee opens comparison.txt before pgoltp would create the lab
chmod 755 "$LAB"

build_pgoltp "$LAB/pgoltp-bin"

echo "== $(date -u +%FT%TZ) compare-versions --pg $MAJORS, TPC-B scale $SCALE, $CLIENTS clients, $REPS × $DUR per major; lab $LAB"
echo "== load average: $(load_average), $(nproc) CPUs"
# shellcheck disable=SC2086
"$PGOLTP" --lab "$LAB" compare-versions --pg "$MAJORS" --workload tpcb --scale "$SCALE" \
  --clients "$CLIENTS" --duration "$DUR" --repetitions "$REPS" $SETS | tee "$LAB/comparison.txt"
echo "== text in $LAB/comparison.txt; runs in $LAB/results.db ('pgoltp --lab $LAB runs')"
echo "== load average after: $(load_average)"
