#!/usr/bin/env bash
# bench/tpcc_run.sh: throughput, driver cost and server cost of `pgoltp tpcc run`.
#
# Starts a private PostgreSQL (shared_buffers 2GB) from the installed binaries
# unless BENCH_DSN names a server, loads W warehouses, then for each of
# CONNS connection counts runs both paths (client, server) in no-wait mode
# with the default 10 terminals per warehouse sharing the connections,
# each group preceded by pgbench (TPC-B, -M prepared, -c REF_CONNS, REF_DUR s)
# as the reference for machine noise. Reports per run: tpmC, tpmTOTAL,
# transactions per second relative to the group's pgbench tps, and CPU-seconds
# per 1,000 transactions of
#   - the driver (it reads its own /proc/<pid>/stat; this script cross-checks
#     by sampling /proc/<pid>/stat while it runs),
#   - the server: utime+stime of the postmaster and all its children
#     (backends, walwriter, checkpointer, bgwriter, autovacuum, ...; children
#     that exit meanwhile through the postmaster's cutime/cstime), sampled
#     every 0.5 s and read off at the driver's measured interval
#     (bench/server_cpu.py), with its split by process kind as shares
#     (server_split: backends running the statements, aux = walwriter,
#     checkpointer, bgwriter, launchers and the postmaster, autovacuum and
#     parallel workers, exited = children not seen alive);
#     only when this script started the server or SERVER_PID names the
#     postmaster of BENCH_DSN,
# the WAL bytes per transaction and the checkpoints started during the run
# (ramp-up included; full-page writes after a checkpoint cost the server
# work per transaction that no plan shows),
# and tpmTOTAL as a share of the ceiling the host's CPUs allow at that cost:
# ceiling = NCPU CPU-s/s / (server + driver CPU-s per transaction), with
# where the host's CPUs went in the measured interval (host=, from
# /proc/stat, bench/host_cpu.py): server, driver, other (kernel writeback
# threads, other processes), steal (the hypervisor's) and idle+iowait; the
# ceiling share is server+driver, so the others bound it. pgbench's line
# gets the same server CPU and ceiling share.
# Finally 10,000 terminals in spec mode: peak RSS of the driver (VmHWM); that
# is more than 10 per warehouse, so it runs with --allow-noncompliant.
#
# Usage: bench/tpcc_run.sh
# Env:   W=10 DUR=30 RAMP=5 CONNS="4 8 16" PATHS="client server" ROUNDS=1
#        REF_CONNS=8 REF_DUR=30 RSS_TERMINALS=10000 (0 = skip) RSS_DUR=60
#        PORT=5513 TRANSPORT=tcp|unix (the private server: 127.0.0.1 or its
#        Unix socket, which the managed cluster's own runs use)
#        SERVER_OPTS="-c name=value ..." (more settings of the private server,
#        e.g. -c synchronous_commit=off to see how much of the idle CPU is
#        commits waiting for their flush: a diagnosis, never a result)
#        BENCH_DSN=postgres://... SERVER_PID=<postmaster pid>
#        PGOLTP=path/to/binary (default: built from this checkout), or
#        BINARIES="before=/path/a after=/path/b" to alternate binaries
#        (each run of one path and connection count runs every binary)
#        EXTRA="--procs 1" (more flags for every tpcc run) WARM=30 (unreported warm-up run, s)
#        HAMMERDB="functions" (or "functions procedures"): HammerDB 4.12's
#        driver in these modes joins every group's alternation, on its own
#        W-warehouse database on the same server, with as many virtual users
#        as the group's connections (bench/hammerdb.sh: its cold first run is
#        made once and not reported; it times whole minutes, HDB_RAMP=1
#        HDB_DUR=1). Needs TRANSPORT=tcp, which HammerDB uses. Its line and
#        pgoltp's carry the server's CPU per 1,000 New-Orders as well
#        (server_cpu_s_per_1k_no): HammerDB's TPM counts the server's
#        commits and rollbacks, not the driver's transactions.
set -euo pipefail

W=${W:-10}
DUR=${DUR:-30}
RAMP=${RAMP:-5}
CONNS=${CONNS:-"4 8 16"}
PATHS=${PATHS:-"client server"}
ROUNDS=${ROUNDS:-1}
REF_CONNS=${REF_CONNS:-8}
REF_DUR=${REF_DUR:-30}
RSS_TERMINALS=${RSS_TERMINALS:-10000}
RSS_DUR=${RSS_DUR:-60}
PORT=${PORT:-5513}
TRANSPORT=${TRANSPORT:-tcp}
HAMMERDB=${HAMMERDB:-}
HDB_RAMP=${HDB_RAMP:-1}
HDB_DUR=${HDB_DUR:-1}
. "$(dirname "$0")/lib.sh"
WORK=$(mktemp -d /tmp/pgoltp-bench-tpcc-XXXXXX)
chmod 755 "$WORK"
trap remove_private_work EXIT

if [ -z "${BINARIES:-}" ]; then
  build_pgoltp "$WORK/pgoltp"
  BINARIES="this=$PGOLTP"
fi
PGOLTP=${BINARIES##*=} # the last one loads and runs the spec-mode round

if [ -z "${BENCH_DSN:-}" ]; then
  start_private_server "$PORT" "${SERVER_OPTS:-}"
  case "$TRANSPORT" in
    tcp) ADMIN_DSN="postgres://postgres@127.0.0.1:$PORT/postgres" ;;
    unix) ADMIN_DSN="postgres://postgres@/postgres?host=$PGDATA_DIR&port=$PORT" ;;
    *) echo "TRANSPORT=$TRANSPORT: use tcp or unix" >&2; exit 2 ;;
  esac
else
  ADMIN_DSN=$BENCH_DSN
fi
SERVER_PID=${SERVER_PID:-}
if [ -n "$HAMMERDB" ] && [ "$TRANSPORT" != tcp ] && [ -z "${BENCH_DSN:-}" ]; then
  echo "HAMMERDB=$HAMMERDB: HammerDB connects over TCP; use TRANSPORT=tcp" >&2; exit 2
fi
NCPU=$(nproc)
TPCC_DSN=$(dsn_for "$ADMIN_DSN" pgoltp_bench_tpcc)
REF_DSN=$(dsn_for "$ADMIN_DSN" pgoltp_bench_ref)
psql -q "$ADMIN_DSN" -c "drop database if exists pgoltp_bench_tpcc" -c "drop database if exists pgoltp_bench_ref" \
  -c "create database pgoltp_bench_tpcc" -c "create database pgoltp_bench_ref"

echo "# bench/tpcc_run.sh $(date -u +%FT%TZ) W=$W dur=${DUR}s ramp=${RAMP}s conns='$CONNS' paths='$PATHS' rounds=$ROUNDS transport=$TRANSPORT server_opts='${SERVER_OPTS:-}' extra='${EXTRA:-}' binaries='$BINARIES'"
echo "# server: $(psql -Atc 'select version()' "$ADMIN_DSN" | cut -d, -f1), shared_buffers $(psql -Atc 'show shared_buffers' "$ADMIN_DSN"); host: $(nproc) CPUs, load $(load_average)"
"$PGOLTP" --dsn "$TPCC_DSN" tpcc load --warehouses "$W" >/dev/null 2>&1
pgbench -i -q -s "$W" "$REF_DSN" >/dev/null 2>&1
# Settle before measuring: vacuum what the loads left for autovacuum, and warm
# the cache with one unreported run, so that the first measured run is not
# the one that pays for it.
psql -q "$TPCC_DSN" -c "vacuum analyze"
psql -q "$REF_DSN" -c "vacuum analyze"
"$PGOLTP" --dsn "$TPCC_DSN" tpcc run --record=false --check none --duration "${WARM:-30}s" --progress 0 ${EXTRA:-} >/dev/null 2>&1

# hammerdb MODES ROUNDS COLD VU: bench/hammerdb.sh on this server.
hammerdb() {
  BENCH_DSN=$ADMIN_DSN SERVER_PID=$SERVER_PID W=$W MODES=$1 ROUNDS=$2 COLD=$3 VU=$4 RAMP=$HDB_RAMP DUR=$HDB_DUR \
    "$BENCH/hammerdb.sh" >"$WORK/hammerdb.out" || { echo "bench/hammerdb.sh failed:"; cat "$WORK/hammerdb.out"; return 1; }
  grep -v '^#' "$WORK/hammerdb.out" || true
}
# HammerDB's databases, built by its own loader, and its cold first run.
[ -n "$HAMMERDB" ] && hammerdb "$HAMMERDB" 0 1 8

# cpu_ticks PID: utime+stime of PID from /proc/PID/stat (clock ticks), empty when gone.
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat" 2>/dev/null || true; }
HZ=$(getconf CLK_TCK)

REF_TPS=""
# run_tpcc LABEL BINARY PATH CONNS: one no-wait run; prints one result line.
# The server's CPU is sampled every 0.5 s during the run and read off at the
# driver's measured interval (measure_start..measure_end of its --json).
run_tpcc() {
  local label=$1 bin=$2 path=$3 conns=$4 pid ticks=0 t sampler="" wal0 wal1
  : >"$WORK/server_cpu"
  # WAL position and checkpoints before and after the run (ramp-up included):
  # full-page writes after a checkpoint and checkpoints landing in a run
  # change the server's work per transaction without any change of plan.
  wal0=$(psql -Atc "select pg_current_wal_lsn() - '0/0', checkpoints_timed + checkpoints_req from pg_stat_bgwriter" "$ADMIN_DSN")
  if [ -n "$SERVER_PID" ]; then
    python3 "$BENCH/server_cpu.py" "$SERVER_PID" 0.5 >"$WORK/server_cpu" &
    sampler=$!
  fi
  python3 "$BENCH/host_cpu.py" 0.5 >"$WORK/host_cpu" &
  local hostsampler=$!
  "$bin" --dsn "$TPCC_DSN" --json tpcc run --record=false --check none --path "$path" --conns "$conns" \
    --duration "${DUR}s" --ramp "${RAMP}s" --progress 0 ${EXTRA:-} >"$WORK/run.json" 2>"$WORK/run.err" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    t=$(cpu_ticks "$pid"); [ -n "$t" ] && ticks=$t
    sleep 0.2
  done
  [ -n "$sampler" ] && { kill "$sampler"; wait "$sampler" 2>/dev/null || true; }
  kill "$hostsampler"; wait "$hostsampler" 2>/dev/null || true
  wait "$pid" || { echo "run failed: $(cat "$WORK/run.err")"; return 1; }
  wal1=$(psql -Atc "select pg_current_wal_lsn() - '0/0', checkpoints_timed + checkpoints_req from pg_stat_bgwriter" "$ADMIN_DSN")
  python3 - "$WORK/run.json" "$label" "$path" "$conns" "$ticks" "$HZ" "$WORK/server_cpu" "$NCPU" "${REF_TPS:-0}" "$wal0" "$wal1" "$WORK/host_cpu" <<'PY'
import json, sys, datetime
r = json.load(open(sys.argv[1])); label, path, conns = sys.argv[2:5]
(wal0, ck0), (wal1, ck1) = (map(float, a.split("|")) for a in sys.argv[10:12])
ticks, hz = int(sys.argv[5]), int(sys.argv[6])
ncpu, ref = float(sys.argv[8]), float(sys.argv[9])
def unix(ts):  # RFC 3339 with nanoseconds
    head, frac = ts.rstrip("Z").split(".")
    return datetime.datetime.fromisoformat(head).replace(tzinfo=datetime.timezone.utc).timestamp() + float("0." + frac)
def host_split(path, t0, t1, ncpu, server, driver):
    """Where the host's CPUs went in t0..t1 (bench/host_cpu.py), as shares of
    NCPU CPU-s/s: the server and the driver (CPU-s/s), the rest of the busy
    time (other processes, kernel threads such as writeback), steal, and
    idle+iowait. The ceiling share can reach at most server+driver's room:
    100% minus the others, steal and idle."""
    hs = []
    for l in open(path):
        w = l.split()
        if len(w) >= 5:
            hs.append((float(w[0]), {k: float(v) for k, v in (x.split("=") for x in w[1:])}))
    hs = [h for h in hs if t0 <= h[0] <= t1]
    if len(hs) < 2 or hs[-1][0] <= hs[0][0]:
        return ""
    span = (hs[-1][0] - hs[0][0]) * ncpu
    d = {k: (hs[-1][1][k] - hs[0][1][k]) / span for k in hs[0][1]}
    other = d["busy"] - (server + driver) / ncpu
    line = (f" host=server:{100 * server / ncpu:.0f}%,driver:{100 * driver / ncpu:.0f}%,other:{100 * other:.0f}%,"
            f"steal:{100 * d['steal']:.0f}%,idle:{100 * (d['idle'] + d['iowait']):.0f}%")
    if "kthreads" in d:
        # What "other" is: the kernel's threads (writeback, flush workers,
        # ksoftirqd), interrupts and softirqs (the network stack), and the
        # rest (other processes, and the share of irq time the kernel
        # charges to the tasks it interrupted).
        line += (f" other_split=kthreads:{100 * d['kthreads']:.1f}%,irq:{100 * d['irq']:.1f}%,"
                 f"rest:{100 * (other - d['kthreads'] - d['irq']):.1f}%")
    return line
t0, t1 = unix(r["measure_start"]), unix(r["measure_end"])
# "<unix time> <CPU s> kind=<CPU s> ...": the server's CPU so far, split by process kind.
samples = []
for l in open(sys.argv[7]):
    w = l.split()
    if len(w) >= 2:
        samples.append((float(w[0]), float(w[1]), {k: float(v) for k, v in (x.split("=") for x in w[2:])}))
inside = [s for s in samples if t0 <= s[0] <= t1]
tps = r["tpm_total"] / 60
drv = r["driver_cpu_s_per_1k"]
line = (f"tpcc bin={label} path={path} terminals={r['options']['Terminals']} conns={conns} tpmC={int(r['tpmc'])} "
        f"tpmTOTAL={r['tpm_total']:.0f} driver_cpu_s_per_1k={drv:.3f}")
if len(inside) >= 2 and inside[-1][0] > inside[0][0]:
    srv = 1000 * (inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0]) / tps
    ceiling = 60 * ncpu / ((srv + drv) / 1000)  # tpmTOTAL the CPUs allow at this cost
    line += f" server_cpu_s_per_1k={srv:.3f} ceiling_pct={100 * r['tpm_total'] / ceiling:.1f}"
    line += host_split(sys.argv[12], t0, t1, ncpu, srv * tps / 1000, drv * tps / 1000)
    # Shares of the server's CPU in the interval by process kind (bench/server_cpu.py):
    # backends running the statements, aux (walwriter, checkpointer, bgwriter,
    # launchers, postmaster), autovacuum and parallel workers, exited (unseen).
    used = inside[-1][1] - inside[0][1]
    if used > 0 and inside[0][2]:
        line += " server_split=" + ",".join(
            f"{k}:{100 * (inside[-1][2][k] - inside[0][2][k]) / used:.0f}%" for k in inside[0][2])
if ref > 0:
    line += f" vs_pgbench={tps / ref:.3f}"
# WAL over the whole run (ramp-up included) per transaction of the whole run.
d = r["options"]
whole = r["tpm_total"] / 60 * (d["Duration"] + d["Ramp"]) / 1e9
if whole > 0:
    line += f" wal_kb_per_txn={(wal1 - wal0) / 1024 / whole:.2f} checkpoints={int(ck1 - ck0)}"
if len(inside) >= 2 and inside[-1][0] > inside[0][0] and r["tpmc"] > 0:
    line += f" server_cpu_s_per_1k_no={srv * r['tpm_total'] / r['tpmc']:.3f}"
line += (f" proc_cpu_s={ticks/hz:.2f} errors={r['errors']} retries={r['retries']}"
         f" p90_NO_ms={r['txns'][0]['latency']['p90_ns']/1e6:.2f}")
print(line)
PY
}

# run_ref: pgbench TPC-B on the same server, the noise reference.
# With the server's pid known, it also gives pgbench's own server CPU per
# 1,000 transactions and share of the CPU ceiling, the same way as for
# pgoltp's runs (over the run less its first and last second): what the
# machine allows a C driver with a one-statement-per-call workload.
run_ref() {
  local sampler="" t0 t1
  if [ -n "$SERVER_PID" ]; then
    python3 "$BENCH/server_cpu.py" "$SERVER_PID" 0.5 >"$WORK/ref_server_cpu" &
    sampler=$!
  fi
  python3 "$BENCH/host_cpu.py" 0.5 >"$WORK/ref_host_cpu" &
  local hostsampler=$!
  t0=$(date +%s.%N)
  /usr/bin/time -f '%U %S' -o "$WORK/time" pgbench -n -M prepared -c "$REF_CONNS" -j 2 -T "$REF_DUR" "$REF_DSN" >"$WORK/ref.out" 2>&1
  t1=$(date +%s.%N)
  [ -n "$sampler" ] && { kill "$sampler"; wait "$sampler" 2>/dev/null || true; }
  kill "$hostsampler"; wait "$hostsampler" 2>/dev/null || true
  REF_TPS=$(awk '/^tps = /{print $3; exit}' "$WORK/ref.out")
  read -r u s <"$WORK/time"
  local cpu
  cpu=$(echo "$u + $s" | bc)
  python3 - "$REF_CONNS" "$REF_TPS" "$cpu" "$REF_DUR" "$t0" "$t1" "$NCPU" "$WORK/ref_server_cpu" <<'PY'
import sys
conns, tps, cpu, dur, t0, t1, ncpu = sys.argv[1], *map(float, sys.argv[2:8])
line = f"pgbench conns={conns} tps={tps:.1f} cpu_s={cpu:.2f}"
drv = 1000 * cpu / (tps * dur)  # pgbench's CPU-s per 1,000 transactions
line += f" driver_cpu_s_per_1k={drv:.3f}"
samples = []
try:
    for l in open(sys.argv[8]):
        w = l.split()
        if len(w) >= 2:
            samples.append((float(w[0]), float(w[1])))
except OSError:
    pass
inside = [s for s in samples if t0 + 1 <= s[0] <= t1 - 1]
if len(inside) >= 2 and inside[-1][0] > inside[0][0]:
    srv = 1000 * (inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0]) / tps
    line += f" server_cpu_s_per_1k={srv:.3f} ceiling_pct={100 * tps * (srv + drv) / 1000 / ncpu:.1f}"
print(line)
PY
}

# The order of the paths and of the binaries alternates from one group to
# the next, so that none is always the one that runs right after pgbench.
reverse() { echo "$1" | tr ' ' '\n' | tac | tr '\n' ' '; }
group=0
for r in $(seq 1 "$ROUNDS"); do
  for c in $CONNS; do
    run_ref
    # Every driver of the group: each path with each binary, then HammerDB's modes.
    drivers=""
    for p in $PATHS; do
      for b in $BINARIES; do drivers="$drivers tpcc:$p:$b"; done
    done
    for m in $HAMMERDB; do drivers="$drivers hammerdb:$m"; done
    [ $((group % 2)) -eq 1 ] && drivers=$(reverse "$drivers")
    for d in $drivers; do
      case $d in
        tpcc:*) d=${d#tpcc:}; b=${d#*:}; run_tpcc "${b%%=*}" "${b#*=}" "${d%%:*}" "$c" ;;
        hammerdb:*) hammerdb "${d#hammerdb:}" 1 0 "$c" ;;
      esac
    done
    group=$((group + 1))
  done
done

[ "$RSS_TERMINALS" -gt 0 ] || { "$PGOLTP" --dsn "$TPCC_DSN" tpcc check --quick >/dev/null && echo "tpcc check: PASS" || echo "tpcc check: FAIL"; exit 0; }
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
