#!/usr/bin/env bash
# bench/os_doctor.sh: "measure what doctor recommends for the OS" (issue 28) on
# TPC-C, as one command: pgoltp experiment --from-doctor --allow-os.
#
# Starts a managed PostgreSQL 15 lab with the given shared_buffers, prints what
# doctor says about the machine (its text and its os-plan), then runs the plan
# whose steps are doctor's OS recommendations, one per step, each in pairs
# interleaved with the baseline (the machine as it is), on TPC-C with W
# warehouses. Every OS value changed is in the lab's restore record before it
# is changed and is restored and read back at the end ('pgoltp restore' after a
# kill). The text is kept in LAB/experiment.txt.
#
# Usage: bench/os_doctor.sh [LAB]   (default: a fresh directory under /tmp)
# Env:   PGOLTP=path/to/binary (default: built from this checkout)
#        W=10 CLIENTS=10 DUR=60s MAXREPS=6 SB=128MB (shared_buffers)
# Root only (the steps change kernel and disk settings machine-wide).
set -euo pipefail

W=${W:-10}
CLIENTS=${CLIENTS:-10}
DUR=${DUR:-60s}
MAXREPS=${MAXREPS:-6}
SB=${SB:-128MB}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LAB=${1:-$(mktemp -d /tmp/pgoltp-osdoctor-XXXXXX)}
mkdir -p "$LAB"
chmod 755 "$LAB" # the server user must reach the lab
if [ "$(id -u)" != 0 ]; then
  echo "bench/os_doctor.sh changes kernel and disk settings: run it as root" >&2
  exit 2
fi

if [ -z "${PGOLTP:-}" ]; then
  PGOLTP=$LAB/pgoltp-bin
  (cd "$ROOT" && go build -o "$PGOLTP" ./cmd/pgoltp)
fi
pg() { "$PGOLTP" --lab "$LAB" "$@"; }

pg cluster up >/dev/null
# doctor judges the server as it will run: set shared_buffers first (the
# experiment's baseline sets it again for every run).
pg cluster psql -- -qAtc "ALTER SYSTEM SET shared_buffers = '$SB'" >/dev/null
pg cluster down >/dev/null
pg cluster up >/dev/null
echo "== $(date -u +%FT%TZ) doctor on this machine (lab $LAB, shared_buffers $SB)"
pg doctor | tee "$LAB/doctor.txt"
pg doctor --format os-plan | tee "$LAB/doctor-os-plan.yaml"

cat >"$LAB/workload.yaml" <<PLAN
name: doctor's OS recommendations on TPC-C ($W warehouses, shared_buffers $SB)
workload: {kind: tpcc, scale: $W, clients: $CLIENTS}
duration: $DUR
repetitions: auto
max_repetitions: $MAXREPS
min_effect: 3%
prewarm: 10s
baseline:
  settings: {shared_buffers: $SB}
PLAN

echo "== $(date -u +%FT%TZ) experiment --from-doctor: TPC-C $W warehouses, $CLIENTS clients, $DUR runs, up to $MAXREPS pairs per step"
echo "== load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
pg experiment --from-doctor --allow-os "$LAB/workload.yaml" | tee "$LAB/experiment.txt"
echo "== $(date -u +%FT%TZ) load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== the machine's values now (restored):"
sysctl vm.dirty_background_bytes vm.dirty_bytes vm.dirty_background_ratio vm.dirty_ratio
for q in /sys/block/*/queue/read_ahead_kb; do echo "$q $(cat "$q")"; done
echo "== runs in $LAB/results.db ('pgoltp --lab $LAB runs'); destroy with 'pgoltp cluster destroy --lab $LAB'"
