#!/usr/bin/env bash
# bench/soak.sh: a soak run (issue 14) on a fresh managed cluster (its own
# lab): one long recorded run whose driver memory must stay flat.
#
#   1. load TPC-B at SCALE (or TPC-C at WAREHOUSES with WORKLOAD=tpcc)
#   2. run it for DURATION (-P 60, recorded, --bloat-every BLOAT_EVERY), and
#      sample the pgoltp process's RSS (VmRSS) every SAMPLE_EVERY into
#      OUT/rss.csv (elapsed_s,rss_kb)
#   3. fit RSS = a + b·t by least squares over the last 3/4 of the samples
#      (the first quarter is warm-up: buffers and histograms reach their
#      size) and fail when b is above MAX_SLOPE_KB_PER_H (default 1 MB/h).
#      Everything a run keeps in memory stops growing within the first
#      half hour: the series (half an hour at 1 s, then neighbours merge;
#      the store gets every second as the run goes), TPC-B's histogram
#      snapshots (30 windows, then neighbours merge), the collectors' points
#      (stored every 10 s). A run of minutes is all warm-up: its slope says
#      nothing; give it hours. The Go runtime's GC trace (GODEBUG=gctrace=1)
#      gives the live heap after each collection: the same fit on it is
#      printed beside the verdict, as the explanation (RSS also holds the
#      binary's code pages and the heap's headroom up to the next GC).
#   4. write the run's report (drift panels from 2 h on) to OUT/report.html
#
# Usage: bench/soak.sh            (4 hours with the defaults)
# Env:   PGOLTP=path/to/binary (default: built from this checkout)
#        DURATION=4h WORKLOAD=tpcb|tpcc SCALE=10 CLIENTS=4 JOBS=2 RATE= (tpcb -R)
#        WAREHOUSES=2 CONNS=4 (tpcc)  SAMPLE_EVERY=60 (seconds)
#        MAX_SLOPE_KB_PER_H=1024 BLOAT_EVERY=15m OUT=./soak-<UTC time>
#        PG=15 (the major of the managed cluster)
#        KEEP=1 (keep the lab: cluster and results store)
# Exit status 1 when RSS trends up (or the run failed).
set -euo pipefail

DURATION=${DURATION:-4h}
WORKLOAD=${WORKLOAD:-tpcb}
SCALE=${SCALE:-10}
CLIENTS=${CLIENTS:-4}
JOBS=${JOBS:-2}
RATE=${RATE:-}
WAREHOUSES=${WAREHOUSES:-2}
CONNS=${CONNS:-4}
SAMPLE_EVERY=${SAMPLE_EVERY:-60}
MAX_SLOPE_KB_PER_H=${MAX_SLOPE_KB_PER_H:-1024}
BLOAT_EVERY=${BLOAT_EVERY:-15m}
PG=${PG:-15}
OUT=${OUT:-./soak-$(date -u +%Y%m%dT%H%M%SZ)}
. "$(dirname "$0")/lib.sh"
lab_work
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
RUN_PID=
cleanup() {
  if [ -n "$RUN_PID" ] && kill -0 "$RUN_PID" 2>/dev/null; then kill -INT "$RUN_PID" || true; wait "$RUN_PID" || true; fi
  if [ -n "${KEEP:-}" ]; then
    echo "lab kept in $LAB" >&2
    return
  fi
  remove_lab_work
}
build_pgoltp "$WORK/pgoltp"
trap cleanup EXIT

echo "# bench/soak.sh $(date -u +%FT%TZ) pg=$PG workload=$WORKLOAD duration=$DURATION sample_every=${SAMPLE_EVERY}s max_slope=${MAX_SLOPE_KB_PER_H}KB/h"
echo "# host: $(nproc) CPUs, load $(load_average); output in $OUT"
"$PGOLTP" cluster up --lab "$LAB" --pg "$PG" >/dev/null
case "$WORKLOAD" in
  tpcb)
    "$PGOLTP" --lab "$LAB" tpcb load -s "$SCALE" >/dev/null
    args=(tpcb run -M prepared -c "$CLIENTS" -j "$JOBS" -T "$DURATION" -P 60 --bloat-every "$BLOAT_EVERY")
    [ -n "$RATE" ] && args+=(-R "$RATE")
    ;;
  tpcc)
    "$PGOLTP" --lab "$LAB" tpcc load --warehouses "$WAREHOUSES" >/dev/null
    args=(tpcc run --conns "$CONNS" --duration "$DURATION" --progress 60 --check quick --bloat-every "$BLOAT_EVERY")
    ;;
  *) echo "WORKLOAD=$WORKLOAD: use tpcb or tpcc" >&2; exit 2 ;;
esac

GODEBUG=${GODEBUG:+$GODEBUG,}gctrace=1 "$PGOLTP" --lab "$LAB" "${args[@]}" >"$OUT/run.out" 2>"$OUT/run.err" &
RUN_PID=$!
echo "elapsed_s,rss_kb" >"$OUT/rss.csv"
start=$(date +%s)
while kill -0 "$RUN_PID" 2>/dev/null; do
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$RUN_PID/status" 2>/dev/null || true)
  [ -n "$rss" ] && echo "$(($(date +%s) - start)),$rss" >>"$OUT/rss.csv"
  sleep "$SAMPLE_EVERY" &
  wait $! || true
done
status=0
wait "$RUN_PID" || status=$?
RUN_PID=
tail -n 25 "$OUT/run.out"
if [ "$status" -ne 0 ]; then
  echo "the run failed (exit $status):" >&2
  grep -v '^gc ' "$OUT/run.err" | tail -n 5 >&2
  exit 1
fi

verdict=0
python3 - "$OUT/rss.csv" "$MAX_SLOPE_KB_PER_H" "$OUT/run.err" <<'PY' || verdict=1
import csv, re, sys

def fit(rows):
    """Least-squares slope (per hour) and mean over the last 3/4 of rows."""
    tail = rows[len(rows) // 4:]
    n = len(tail)
    mx = sum(t for t, _ in tail) / n
    my = sum(v for _, v in tail) / n
    sxx = sum((t - mx) ** 2 for t, _ in tail)
    return sum((t - mx) * (v - my) for t, v in tail) / sxx * 3600, my

rows = [(float(r["elapsed_s"]), float(r["rss_kb"])) for r in csv.DictReader(open(sys.argv[1]))]
limit = float(sys.argv[2])
if len(rows) < 4:
    sys.exit(f"only {len(rows)} RSS samples: run longer or sample more often (SAMPLE_EVERY)")
slope, mean = fit(rows)
print(f"RSS: {len(rows)} samples, {min(v for _, v in rows)/1024:.1f}-{max(v for _, v in rows)/1024:.1f} MB; "
      f"last 3/4: mean {mean/1024:.1f} MB, slope {slope:+.1f} KB/h (limit {limit:.0f} KB/h)")
gc = re.compile(r"^gc \d+ @([\d.]+)s .* \d+->\d+->(\d+) MB")
live = [(float(m[1]), float(m[2]) * 1024) for m in map(gc.match, open(sys.argv[3])) if m]
if len(live) >= 4:
    lslope, lmean = fit(live)
    print(f"live heap after GC: {len(live)} collections, last 3/4: mean {lmean/1024:.1f} MB, slope {lslope:+.1f} KB/h")
if slope > limit:
    sys.exit(f"RSS trends up: {slope:+.1f} KB/h over the last 3/4 of the run")
print("RSS flat: ok")
PY
"$PGOLTP" --lab "$LAB" report last -o "$OUT/report.html"
echo "report: $OUT/report.html; RSS trace: $OUT/rss.csv"
exit "$verdict"
