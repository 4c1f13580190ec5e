#!/usr/bin/env bash
# bench/tpcb.sh: pgoltp tpcb against pgbench on the same server and settings,
# run ALTERNATELY so that noise from a shared machine hits both alike.
#
#   1. load:  `pgbench -i -s SCALE` vs `pgoltp tpcb load -s SCALE`, wall time
#   2. run:   `pgbench -n -M PROTOCOL -c 8 -j 2 -T DUR` vs the same flags on
#             `pgoltp tpcb run` (--no-check), ROUNDS rounds; tps and driver
#             CPU seconds per 1000 transactions (user+sys of the driver
#             process, from /usr/bin/time, i.e. getrusage of the child)
#
# Usage: bench/tpcb.sh [DSN]   (default postgres://postgres@127.0.0.1:5499/postgres)
# Env:   PGOLTP=path/to/binary (default: built from this checkout)
#        SCALE=10 ROUNDS=3 DUR=20 CLIENTS=8 JOBS=2 PROTOCOL=prepared LOAD_ROUNDS=2
# Prints one line per measurement and the pgoltp/pgbench ratios at the end.
set -euo pipefail

ADMIN_DSN=${1:-postgres://postgres@127.0.0.1:5499/postgres}
SCALE=${SCALE:-10}
ROUNDS=${ROUNDS:-3}
DUR=${DUR:-20}
CLIENTS=${CLIENTS:-8}
JOBS=${JOBS:-2}
PROTOCOL=${PROTOCOL:-prepared}
LOAD_ROUNDS=${LOAD_ROUNDS:-2}
DB=pgoltp_bench_tpcb
. "$(dirname "$0")/lib.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

build_pgoltp "$WORK/pgoltp"
DSN=$(dsn_for "$ADMIN_DSN" "$DB")

psql -q "$ADMIN_DSN" -c "drop database if exists $DB with (force)" -c "create database $DB"

echo "# bench/tpcb.sh $(date -u +%FT%TZ) scale=$SCALE rounds=$ROUNDS dur=${DUR}s clients=$CLIENTS jobs=$JOBS protocol=$PROTOCOL"
echo "# server: $(psql -Atc 'select version()' "$DSN" | cut -d, -f1); host: $(nproc) CPUs, load $(load_average)"

# timed CMD...: runs CMD, appends "wall user sys" to $WORK/time, output to $WORK/out
timed() { /usr/bin/time -f '%e %U %S' -o "$WORK/time" "$@" >"$WORK/out" 2>&1; }

echo "## load (wall seconds)"
for r in $(seq 1 "$LOAD_ROUNDS"); do
  for tool in pgbench pgoltp; do
    if [ "$tool" = pgbench ]; then timed pgbench -i -q -s "$SCALE" "$DSN"
    else timed "$PGOLTP" --dsn "$DSN" tpcb load -s "$SCALE"; fi
    read -r wall user sys <"$WORK/time"
    echo "load $tool round=$r wall=$wall user=$user sys=$sys"
    echo "$tool $wall" >>"$WORK/load"
  done
done

echo "## run (-M $PROTOCOL -c $CLIENTS -j $JOBS -T $DUR, -n)"
for r in $(seq 1 "$ROUNDS"); do
  order="pgbench pgoltp"
  [ $((r % 2)) -eq 0 ] && order="pgoltp pgbench"
  for tool in $order; do
    if [ "$tool" = pgbench ]; then
      timed pgbench -n -M "$PROTOCOL" -c "$CLIENTS" -j "$JOBS" -T "$DUR" "$DSN"
    else
      timed "$PGOLTP" --dsn "$DSN" tpcb run -n --no-check --record=false -M "$PROTOCOL" -c "$CLIENTS" -j "$JOBS" -T "$DUR"
    fi
    read -r wall user sys <"$WORK/time"
    tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$WORK/out")
    n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$WORK/out")
    cpuk=$(python3 -c "print(f'{($user+$sys)/($n/1000):.4f}')")
    echo "run $tool round=$r tps=$tps txns=$n cpu_s=$(python3 -c "print($user+$sys)") cpu_s_per_1k=$cpuk"
    echo "$tool $tps $cpuk" >>"$WORK/run"
  done
done

python3 - "$WORK/load" "$WORK/run" <<'PY'
import sys, statistics as st
def read(p):
    d = {}
    for line in open(p):
        f = line.split()
        d.setdefault(f[0], []).append([float(x) for x in f[1:]])
    return d
load, run = read(sys.argv[1]), read(sys.argv[2])
lw = {k: st.median(v[0] for v in vs) for k, vs in load.items()}
tps = {k: st.median(v[0] for v in vs) for k, vs in run.items()}
cpu = {k: st.median(v[1] for v in vs) for k, vs in run.items()}
print("## medians")
print(f"load wall s: pgbench {lw['pgbench']:.2f}  pgoltp {lw['pgoltp']:.2f}  ratio pgoltp/pgbench {lw['pgoltp']/lw['pgbench']:.2f} (target <= 1.00)")
print(f"tps:         pgbench {tps['pgbench']:.1f}  pgoltp {tps['pgoltp']:.1f}  ratio {tps['pgoltp']/tps['pgbench']:.3f} (target >= 0.95)")
print(f"CPU-s/1k:    pgbench {cpu['pgbench']:.4f}  pgoltp {cpu['pgoltp']:.4f}  ratio {cpu['pgoltp']/cpu['pgbench']:.2f} (target <= 1.50)")
PY
psql -q "$ADMIN_DSN" -c "drop database if exists $DB with (force)"
