#!/usr/bin/env bash
# bench/builds.sh: "what is -O3 worth, and clang" (issue 28) as one plan.
#
# Builds PostgreSQL 15 three ways from this machine's Debian source package
# (pgoltp build; each reused if it exists with the same options):
#   default    gcc, configure's CFLAGS (-O2)
#   o3-native  gcc, CFLAGS="-O3 -march=native"
#   clang      clang, configure's CFLAGS (-O2)
# then runs an experiment plan with builds: [default, o3-native, clang] on
# TPC-C: one managed cluster per build (LAB/build-NAME), the same data (W
# warehouses loaded on each), the builds interleaved across REPS runs, and
# prints per build throughput and latency with 95% intervals and each
# build's throughput against default (each run paired with default's runs
# before and after it). The text is kept in LAB/comparison.txt.
#
# Usage: bench/builds.sh [LAB]   (default: a fresh directory under /tmp)
# Env:   PGOLTP=path/to/binary (default: built from this checkout)
#        W=10 CLIENTS=10 DUR=60s REPS=3
#        PGOLTP_CACHE: where the builds go (default: pgoltp's cache)
# Each build takes minutes of both cores: the builds run under nice. As root
# it compiles as the user postgres. The labs are left for inspection:
# destroy them with 'pgoltp cluster destroy --lab LAB/build-NAME'.
set -euo pipefail

W=${W:-10}
CLIENTS=${CLIENTS:-10}
DUR=${DUR:-60s}
REPS=${REPS:-3}
. "$(dirname "$0")/lib.sh"
LAB=${1:-$(mktemp -d /tmp/pgoltp-builds-XXXXXX)}
mkdir -p "$LAB"
chmod 755 "$LAB" # the server user must reach the labs

build_pgoltp "$LAB/pgoltp-bin"

build() {
  local name=$1
  shift
  echo "== $(date -u +%FT%TZ) build $name ($*); load average $(load_average)"
  nice -n 10 "$PGOLTP" build --name "$name" "$@"
}
build default --cc gcc
build o3-native --cc gcc --cflags "-O3 -march=native"
build clang --cc clang
"$PGOLTP" build --list

cat >"$LAB/builds.yaml" <<PLAN
name: PostgreSQL 15 builds
workload: {kind: tpcc, scale: $W, clients: $CLIENTS}
duration: $DUR
repetitions: $REPS
builds: [default, o3-native, clang]
PLAN

echo "== $(date -u +%FT%TZ) experiment builds: [default, o3-native, clang], TPC-C $W warehouses, $CLIENTS clients, $REPS × $DUR per build; lab $LAB"
echo "== load average: $(load_average), $(nproc) CPUs"
"$PGOLTP" --lab "$LAB" experiment "$LAB/builds.yaml" | tee "$LAB/comparison.txt"
echo "== text in $LAB/comparison.txt; runs in $LAB/results.db ('pgoltp --lab $LAB runs')"
echo "== load average after: $(load_average)"
