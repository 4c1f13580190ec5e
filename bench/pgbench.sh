#!/usr/bin/env bash
# bench/pgbench.sh: `pgoltp pgbench` against the real pgbench on the same
# server, the same options, ALTERNATELY (a shared machine's noise hits both
# alike), for issue 27's four cases:
#   a. the built-in tpcb-like script          (-M prepared -c 8 -j 2)
#   b. select-only, driver-bound               (-S -M prepared -c 8 -j 2)
#   c. a custom script: \set random_zipfian, \gset, \if  (-M prepared -c 8 -j 2)
#   d. \startpipeline batches of ten selects   (-M prepared -c 8 -j 2)
# For each: tps and driver CPU seconds per 1,000 transactions (user+sys of the
# driver process, from /usr/bin/time), medians of ROUNDS, and the ratios
# pgoltp/pgbench (targets: tps >= 0.97, CPU <= 1.10).
#
# Usage: bench/pgbench.sh DSN     Env: PGOLTP (default: built from this
# checkout) SCALE=10 ROUNDS=3 DUR=15 CASES="a b c d"
set -euo pipefail
DSN=${1:?usage: bench/pgbench.sh DSN}
SCALE=${SCALE:-10}
ROUNDS=${ROUNDS:-3}
DUR=${DUR:-15}
CASES=${CASES:-a b c d}
. "$(dirname "$0")/lib.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
build_pgoltp "$WORK/pgoltp"

pgbench_case_scripts "$WORK"
args_of() { pgbench_case_args "$1" "$WORK"; }

pgbench -i -q -s "$SCALE" "$DSN" >/dev/null 2>&1
echo "# bench/pgbench.sh $(date -u +%FT%TZ) scale=$SCALE rounds=$ROUNDS dur=${DUR}s; host: $(nproc) CPUs, load $(load_average)"
for c in $CASES; do
  for r in $(seq 1 "$ROUNDS"); do
    order="pgbench pgoltp"
    [ $((r % 2)) -eq 0 ] && order="pgoltp pgbench"
    for tool in $order; do
      # shellcheck disable=SC2046
      if [ "$tool" = pgbench ]; then
        /usr/bin/time -f '%U %S' -o "$WORK/time" pgbench -n -M prepared -c 8 -j 2 -T "$DUR" $(args_of "$c") "$DSN" >"$WORK/out" 2>&1
      else
        /usr/bin/time -f '%U %S' -o "$WORK/time" "$PGOLTP" pgbench -n -M prepared -c 8 -j 2 -T "$DUR" $(args_of "$c") "$DSN" >"$WORK/out" 2>&1
      fi
      read -r user sys <"$WORK/time"
      tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$WORK/out")
      n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$WORK/out")
      cpuk=$(python3 -c "print(f'{($user+$sys)/($n/1000):.4f}')")
      echo "case=$c $tool round=$r tps=$tps txns=$n cpu_s_per_1k=$cpuk"
      echo "$c $tool $tps $cpuk" >>"$WORK/res"
    done
  done
done
python3 - "$WORK/res" <<'PY'
import math, sys, statistics as st
rows = {}
for line in open(sys.argv[1]):
    c, tool, tps, cpu = line.split()
    rows.setdefault((c, tool), []).append((float(tps), float(cpu)))
# Two-sided 95% t quantiles by degrees of freedom (normal beyond 30).
T95 = [12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23, 2.20, 2.18, 2.16, 2.14, 2.13,
       2.12, 2.11, 2.10, 2.09, 2.09, 2.08, 2.07, 2.07, 2.06, 2.06, 2.06, 2.05, 2.05, 2.05, 2.04]
def paired(a, b):
    """Geometric mean of the per-round ratios a/b with its 95% interval: the two
    runs of a round are adjacent, so what drifts between rounds cancels."""
    logs = [math.log(x / y) for x, y in zip(a, b)]
    m = st.mean(logs)
    if len(logs) < 2:
        return f"{math.exp(m):.3f}"
    h = T95[min(len(logs) - 1, len(T95)) - 1] * st.stdev(logs) / math.sqrt(len(logs))
    return f"{math.exp(m):.3f} ({math.exp(m - h):.3f} .. {math.exp(m + h):.3f})"
print("## medians (ratios pgoltp/pgbench; targets tps >= 0.97, CPU <= 1.10)")
for c in sorted({k[0] for k in rows}):
    t = {tool: st.median(x[0] for x in rows[(c, tool)]) for tool in ("pgbench", "pgoltp")}
    u = {tool: st.median(x[1] for x in rows[(c, tool)]) for tool in ("pgbench", "pgoltp")}
    print(f"case {c}: tps pgbench {t['pgbench']:.0f} pgoltp {t['pgoltp']:.0f} ratio {t['pgoltp']/t['pgbench']:.3f}; "
          f"CPU-s/1k pgbench {u['pgbench']:.4f} pgoltp {u['pgoltp']:.4f} ratio {u['pgoltp']/u['pgbench']:.2f}")
print("## per-round ratios pgoltp/pgbench, geometric mean (95% interval)")
for c in sorted({k[0] for k in rows}):
    a, b = rows[(c, "pgoltp")], rows[(c, "pgbench")]
    print(f"case {c}: tps {paired([x[0] for x in a], [x[0] for x in b])}; "
          f"CPU {paired([x[1] for x in a], [x[1] for x in b])}")
PY
