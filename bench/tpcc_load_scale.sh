#!/usr/bin/env bash
# bench/tpcc_load_scale.sh: `pgoltp tpcc load` at several scales, one after
# the other on the same server: the rate in MB/s of table data, the cost per
# row, and the driver's peak RSS, which must not grow with the scale.
#
# For each number of warehouses W (WS, in order) it loads schema scale_W from
# empty, under nice, and prints one line:
#   rows, tables_mb     rows loaded; the tables' size without indexes (pg_table_size)
#   data_s, index_s, analyze_s, total_s   the load's phases, wall time
#   mb_s_data, mb_s_total   table MB per second of the data phase / of the whole load
#   wall_us_row         total wall time per row (depends on how busy the host is)
#   server_us_row       server CPU per row (every postgres process, bench/server_cpu.py)
#   driver_us_row       driver CPU per row (the loader's own CPU, from its stats)
#   driver_rss_mb       the loader's peak RSS (VmHWM)
#   load_avg            the host's 1-minute load average before and after
# and at the end each scale's cost per row against the smallest one's.
#
# Usage: bench/tpcc_load_scale.sh [DSN]       an existing server on this host (superuser)
#        bench/tpcc_load_scale.sh --lab DIR   the lab's managed cluster (pgoltp cluster up)
# Env:   WS="10 50 100" WORKERS=(CPUs) PGOLTP=path/to/binary NICE=10
#        KEEP=1 keeps each schema (default: dropped after its line, to give the disk back)
# The 500-warehouse load of issue 32 (about 50 GB of disk, 37 GB of tables):
#        WS="10 100 500" bench/tpcc_load_scale.sh --lab DIR
set -euo pipefail

WS=${WS:-10 50 100}
WORKERS=${WORKERS:-$(nproc)}
NICE=${NICE:-10}
. "$(dirname "$0")/lib.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

build_pgoltp "$WORK/pgoltp"
if [ "${1:-}" = "--lab" ]; then
  LAB=${2:?usage: bench/tpcc_load_scale.sh --lab DIR}
  lab_server "$LAB" pgoltp
  DSN=$LAB_DSN
else
  DSN=${1:-postgres://postgres@127.0.0.1:5499/postgres}
fi
export PGOPTIONS="-c client_min_messages=warning"
PSQL=(psql -qAtX -v ON_ERROR_STOP=1 "$DSN")
PM_PID=$(head -1 "$("${PSQL[@]}" -c 'show data_directory')/postmaster.pid")
server_cpu() { python3 "$BENCH/server_cpu.py" "$PM_PID" | cut -d' ' -f1; }
loadavg() { cut -d' ' -f1 /proc/loadavg; }

echo "# bench/tpcc_load_scale.sh $(date -u +%FT%TZ) warehouses=\"$WS\" workers=$WORKERS nice=$NICE ($(cd "$ROOT" && git rev-parse --short HEAD))"
echo "# server: $("${PSQL[@]}" -c 'select version()' | cut -d, -f1); shared_buffers=$("${PSQL[@]}" -c 'show shared_buffers'), max_wal_size=$("${PSQL[@]}" -c 'show max_wal_size'), checkpoint_timeout=$("${PSQL[@]}" -c 'show checkpoint_timeout'), data_checksums=$("${PSQL[@]}" -c 'show data_checksums')"
echo "# host: $(nproc) CPUs, $(free -g | awk '/^Mem/ {print $2}') GiB; the 1-minute load average is on each line (a busy shared host: read the trend, not the seconds)"

for w in $WS; do
  "${PSQL[@]}" -c "drop schema if exists scale_$w cascade" -c checkpoint
  la0=$(loadavg)
  cpu0=$(server_cpu)
  nice -n "$NICE" "$PGOLTP" --dsn "$DSN" --json tpcc load -w "$w" --workers "$WORKERS" --schema "scale_$w" >"$WORK/stats.json" 2>"$WORK/progress"
  cpu1=$(server_cpu)
  la1=$(loadavg)
  python3 - "$WORK/stats.json" "$w" "$cpu0" "$cpu1" "$la0" "$la1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
w, cpu = sys.argv[2], float(sys.argv[4]) - float(sys.argv[3])
ns, rows, mb = 1e9, sum(s["rows"].values()), s["table_bytes"] / 1e6
data, total = s["data_ns"] / ns, s["total_ns"] / ns
print(f"W={w} rows={rows} tables_mb={mb:.0f} data_s={data:.1f} index_s={s['index_ns']/ns:.1f} analyze_s={s['analyze_ns']/ns:.1f} "
      f"total_s={total:.1f} mb_s_data={mb/data:.1f} mb_s_total={mb/total:.1f} wall_us_row={total/rows*1e6:.2f} "
      f"server_us_row={cpu/rows*1e6:.2f} driver_us_row={s['driver_cpu_ns']/1e3/rows:.3f} "
      f"driver_rss_mb={s['driver_peak_rss_bytes']/2**20:.0f} load_avg={sys.argv[5]}->{sys.argv[6]}")
PY
  [ -n "${KEEP:-}" ] || "${PSQL[@]}" -c "drop schema scale_$w cascade"
done | tee "$WORK/log"

python3 - "$WORK/log" <<'PY'
import re, sys
rows = [dict(kv.split("=", 1) for kv in line.split()) for line in open(sys.argv[1]) if line.startswith("W=")]
if len(rows) > 1:
    base = rows[0]
    for r in rows[1:]:
        print(f"W={r['W']} vs W={base['W']}: server CPU per row x{float(r['server_us_row'])/float(base['server_us_row']):.2f}, "
              f"wall per row x{float(r['wall_us_row'])/float(base['wall_us_row']):.2f}, "
              f"driver CPU per row x{float(r['driver_us_row'])/float(base['driver_us_row']):.2f}, "
              f"driver RSS {base['driver_rss_mb']} -> {r['driver_rss_mb']} MB")
PY
