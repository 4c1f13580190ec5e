#!/usr/bin/env bash
# bench/group.sh: one driver process vs a group of 2 parts with half the
# terminals each, on this machine, against the same TPC-C database, run
# ALTERNATELY so that noise from a shared machine hits both alike.
#
#   whole:  pgoltp tpcc run --terminals T
#   group:  pgoltp tpcc run --group gN --part 1/2 --terminals T/2  &
#           pgoltp tpcc run --group gN --part 2/2 --terminals T/2
#
# Expect the same total tpmC within noise, and merged percentiles that agree
# with the single process's (the group's are merged HDR histograms).
#
# Usage: bench/group.sh [DSN]   (default postgres://postgres@127.0.0.1:5499/postgres)
# Env:   PGOLTP=path/to/binary (default: built from this checkout)
#        W=4 DUR=30 RAMP=5 ROUNDS=2 CONNS=4 (per process: the group gets CONNS/2 per part)
set -euo pipefail

ADMIN_DSN=${1:-postgres://postgres@127.0.0.1:5499/postgres}
W=${W:-4}
DUR=${DUR:-30}
RAMP=${RAMP:-5}
ROUNDS=${ROUNDS:-2}
CONNS=${CONNS:-4}
DB=pgoltp_bench_group
. "$(dirname "$0")/lib.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
LAB=$WORK/lab

build_pgoltp "$WORK/pgoltp"
DSN=$(dsn_for "$ADMIN_DSN" "$DB")
psql -q "$ADMIN_DSN" -c "drop database if exists $DB with (force)" -c "create database $DB"

echo "# bench/group.sh $(date -u +%FT%TZ) W=$W dur=${DUR}s ramp=${RAMP}s rounds=$ROUNDS conns=$CONNS"
echo "# server: $(psql -Atc 'select version()' "$DSN" | cut -d, -f1); host: $(nproc) CPUs, load $(load_average)"
"$PGOLTP" --dsn "$DSN" tpcc load --warehouses "$W" --seed 1 >/dev/null

T=$((10 * W))
HALF=$((T / 2))
PART_CONNS=$((CONNS > 1 ? CONNS / 2 : 1))
run=(tpcc run --duration "${DUR}s" --ramp "${RAMP}s" --progress 0 --check none)
# figures JSON: prints "tpmC p50 p99" of New-Order from a run's --json or a group's report.
whole_figs() { python3 -c 'import json,sys;d=json.load(sys.stdin);no=[t for t in d["txns"] if t["name"]=="new_order"][0]["latency"];print("%.1f %.3f %.3f"%(d["tpmc"],no["p50_ns"]/1e6,no["p99_ns"]/1e6))'; }
group_figs() { python3 -c 'import json,sys;d=json.load(sys.stdin);no=[l for l in d["latency"] if l["type"]=="new_order"][0];print("%.1f %.3f %.3f"%(d["rate"]["value"],no["p50_ms"],no["p99_ms"]))'; }

for r in $(seq 1 "$ROUNDS"); do
  order="whole group"
  [ $((r % 2)) -eq 0 ] && order="group whole"
  for kind in $order; do
    if [ "$kind" = whole ]; then
      figs=$("$PGOLTP" --dsn "$DSN" --lab "$LAB" --json "${run[@]}" --terminals "$T" --conns "$CONNS" | whole_figs)
    else
      g=g$r
      "$PGOLTP" --dsn "$DSN" --lab "$LAB" --json "${run[@]}" --group "$g" --part 1/2 --terminals "$HALF" --conns "$PART_CONNS" >"$WORK/p1" &
      p1=$!
      "$PGOLTP" --dsn "$DSN" --lab "$LAB" --json "${run[@]}" --group "$g" --part 2/2 --terminals "$HALF" --conns "$PART_CONNS" >"$WORK/p2"
      wait "$p1"
      figs=$("$PGOLTP" --lab "$LAB" report "$g" --format json | group_figs)
    fi
    read -r tpmc p50 p99 <<<"$figs"
    echo "run $kind round=$r tpmC=$tpmc new_order_p50_ms=$p50 new_order_p99_ms=$p99"
    echo "$kind $tpmc $p50 $p99" >>"$WORK/all"
  done
done

echo "## means over $ROUNDS rounds (group / whole)"
python3 - "$WORK/all" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
m = {k: [st.mean(float(r[i]) for r in rows if r[0] == k) for i in (1, 2, 3)] for k in ("whole", "group")}
for name, i in (("tpmC", 0), ("New-Order p50 ms", 1), ("New-Order p99 ms", 2)):
    w, g = m["whole"][i], m["group"][i]
    print(f"{name}: whole {w:.3f}  group {g:.3f}  ratio {g / w if w else float('nan'):.3f}")
PY
