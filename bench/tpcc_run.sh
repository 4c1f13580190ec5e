#!/usr/bin/env bash
# bench/tpcc_run.sh: throughput and driver cost of `pgoltp tpcc run`.
#
# Starts a private PostgreSQL (shared_buffers 2GB) from the installed binaries
# unless BENCH_DSN names a server, loads W warehouses, then for each of
# CONNS connection counts runs both paths (client, server) in no-wait mode
# with the default 10 terminals per warehouse sharing the connections,
# interleaved with pgbench (TPC-B, -M prepared, same connection count) as the
# reference for machine noise. Reports tpmC, tpmTOTAL and driver CPU-seconds
# per 1000 transactions (the driver reads its own /proc/<pid>/stat; this
# script cross-checks by sampling /proc/<pid>/stat while it runs), and the
# ratio of tpmC to the pgbench reference of the same round.
# Finally 10,000 terminals in spec mode: peak RSS of the driver (VmHWM); that
# is more than 10 per warehouse, so it runs with --allow-noncompliant.
#
# Usage: bench/tpcc_run.sh
# Env:   W=10 DUR=30 RAMP=5 CONNS="4 8 16" PATHS="client server" ROUNDS=1
#        RSS_TERMINALS=10000 RSS_DUR=60 PORT=5513 BENCH_DSN=postgres://...
#        PGOLTP=path/to/binary (default: built from this checkout)
#        EXTRA="--procs 1" (more flags for every tpcc run) WARM=30 (unreported warm-up run, s)
set -euo pipefail

W=${W:-10}
DUR=${DUR:-30}
RAMP=${RAMP:-5}
CONNS=${CONNS:-"4 8 16"}
PATHS=${PATHS:-"client server"}
ROUNDS=${ROUNDS:-1}
RSS_TERMINALS=${RSS_TERMINALS:-10000}
RSS_DUR=${RSS_DUR:-60}
PORT=${PORT:-5513}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/pgoltp-bench-tpcc-XXXXXX)
chmod 755 "$WORK"
PGDATA_DIR=""

cleanup() {
  if [ -n "$PGDATA_DIR" ]; then
    runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -m fast stop >/dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

if [ -z "${PGOLTP:-}" ]; then
  PGOLTP=$WORK/pgoltp
  (cd "$ROOT" && go build -o "$PGOLTP" ./cmd/pgoltp)
fi

if [ -z "${BENCH_DSN:-}" ]; then
  PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}
  PGDATA_DIR=$WORK/data
  mkdir -p "$PGDATA_DIR" && chown postgres "$PGDATA_DIR"
  runuser -u postgres -- "$PGBIN/initdb" -D "$PGDATA_DIR" -U postgres --auth=trust >/dev/null
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -l "$PGDATA_DIR/server.log" -w start \
    -o "-p $PORT -k $PGDATA_DIR -c listen_addresses=127.0.0.1 -c shared_buffers=2GB -c max_connections=300 -c max_wal_size=8GB -c checkpoint_timeout=30min" >/dev/null
  ADMIN_DSN="postgres://postgres@127.0.0.1:$PORT/postgres"
else
  ADMIN_DSN=$BENCH_DSN
fi
dsn_for() { python3 -c 'import sys,urllib.parse as u;p=u.urlsplit(sys.argv[1]);print(u.urlunsplit(p._replace(path="/"+sys.argv[2])))' "$ADMIN_DSN" "$1"; }
TPCC_DSN=$(dsn_for pgoltp_bench_tpcc)
REF_DSN=$(dsn_for pgoltp_bench_ref)
psql -q "$ADMIN_DSN" -c "drop database if exists pgoltp_bench_tpcc" -c "drop database if exists pgoltp_bench_ref" \
  -c "create database pgoltp_bench_tpcc" -c "create database pgoltp_bench_ref"

echo "# bench/tpcc_run.sh $(date -u +%FT%TZ) W=$W dur=${DUR}s ramp=${RAMP}s conns='$CONNS' paths='$PATHS' rounds=$ROUNDS extra='${EXTRA:-}'"
echo "# server: $(psql -Atc 'select version()' "$ADMIN_DSN" | cut -d, -f1), shared_buffers $(psql -Atc 'show shared_buffers' "$ADMIN_DSN"); host: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$PGOLTP" --dsn "$TPCC_DSN" tpcc load --warehouses "$W" >/dev/null 2>&1
pgbench -i -q -s "$W" "$REF_DSN" >/dev/null 2>&1
# Settle before measuring: vacuum what the loads left for autovacuum, and warm
# the cache with one unreported run, so that the first measured run is not
# the one that pays for it.
psql -q "$TPCC_DSN" -c "vacuum analyze"
psql -q "$REF_DSN" -c "vacuum analyze"
"$PGOLTP" --dsn "$TPCC_DSN" tpcc run --record=false --check none --duration "${WARM:-30}s" --progress 0 ${EXTRA:-} >/dev/null 2>&1

# cpu_ticks PID: utime+stime of PID from /proc/PID/stat (clock ticks), empty when gone.
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat" 2>/dev/null || true; }
HZ=$(getconf CLK_TCK)

# run_tpcc PATH CONNS: one no-wait run; prints one result line.
run_tpcc() {
  local path=$1 conns=$2 pid ticks=0 t
  "$PGOLTP" --dsn "$TPCC_DSN" --json tpcc run --record=false --check none --path "$path" --conns "$conns" \
    --duration "${DUR}s" --ramp "${RAMP}s" --progress 0 ${EXTRA:-} >"$WORK/run.json" 2>"$WORK/run.err" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    t=$(cpu_ticks "$pid"); [ -n "$t" ] && ticks=$t
    sleep 0.2
  done
  wait "$pid" || { echo "run failed: $(cat "$WORK/run.err")"; return 1; }
  python3 - "$WORK/run.json" "$path" "$conns" "$ticks" "$HZ" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); path, conns, ticks, hz = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
n = sum(t["count"] for t in r["txns"][:5])
print(f"tpcc path={path} terminals={r['options']['Terminals']} conns={conns} tpmC={int(r['tpmc'])} tpmTOTAL={r['tpm_total']:.0f} "
      f"cpu_s_per_1k={r['driver_cpu_s_per_1k']:.3f} proc_cpu_s={ticks/hz:.2f} errors={r['errors']} "
      f"retries={r['retries']} p90_NO_ms={r['txns'][0]['latency']['p90_ns']/1e6:.2f}")
PY
}

# run_ref CONNS: pgbench TPC-B on the same server, the noise reference.
run_ref() {
  local conns=$1
  /usr/bin/time -f '%U %S' -o "$WORK/time" pgbench -n -M prepared -c "$conns" -j 2 -T "$DUR" "$REF_DSN" >"$WORK/ref.out" 2>&1
  local tps; tps=$(awk '/^tps = /{print $3; exit}' "$WORK/ref.out")
  read -r u s <"$WORK/time"
  echo "pgbench conns=$conns tps=$tps cpu_s=$(echo "$u + $s" | bc)"
}

# The order of the paths alternates from one group to the next, so that
# neither path is always the one that runs right after pgbench.
group=0
for r in $(seq 1 "$ROUNDS"); do
  for c in $CONNS; do
    run_ref "$c"
    order=$PATHS
    [ $((group % 2)) -eq 1 ] && order=$(echo "$PATHS" | tr ' ' '\n' | tac | tr '\n' ' ')
    for p in $order; do run_tpcc "$p" "$c"; done
    group=$((group + 1))
  done
done

echo "## $RSS_TERMINALS terminals, spec mode, ${RSS_DUR}s"
"$PGOLTP" --dsn "$TPCC_DSN" --json tpcc run --record=false --check none --mode spec --terminals "$RSS_TERMINALS" --allow-noncompliant \
  --duration "${RSS_DUR}s" --progress 0 >"$WORK/rss.json" 2>"$WORK/rss.err" &
pid=$!
hwm=0
while kill -0 "$pid" 2>/dev/null; do
  h=$(awk '/VmHWM/{print $2}' "/proc/$pid/status" 2>/dev/null || true); [ -n "$h" ] && hwm=$h
  sleep 0.5
done
wait "$pid" || { echo "spec run failed: $(cat "$WORK/rss.err")"; exit 1; }
python3 - "$WORK/rss.json" "$hwm" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"spec terminals={r['options']['Terminals']} conns={r['options']['Conns']} tpmC={r['tpmc']:.0f} "
      f"efficiency={r['efficiency']:.1f}% peak_rss_MB={r['driver_peak_rss_bytes']/2**20:.0f} "
      f"proc_VmHWM_MB={int(sys.argv[2])/1024:.0f} errors={r['errors']}")
PY
"$PGOLTP" --dsn "$TPCC_DSN" tpcc check --quick >/dev/null && echo "tpcc check: PASS" || echo "tpcc check: FAIL"
