#!/usr/bin/env bash
# bench/tpcc_profile.sh: where the server's time goes in `pgoltp tpcc run`.
#
# Starts a private PostgreSQL (shared_buffers 2GB, pg_stat_statements with
# track=all so that the statements inside the PL/pgSQL functions are counted
# too) unless BENCH_DSN names a server that already preloads it, loads W
# warehouses, then per path runs DUR seconds in no-wait mode with the default
# terminals (10 per warehouse) over CONNS connections and reports, for that
# run alone (statistics reset before it):
#   - the server's CPU per 1,000 transactions in the driver's measured
#     interval (/proc of the postmaster and its children, exited children
#     through the postmaster's cutime/cstime: bench/server_cpu.py),
#   - per statement: transaction type, calls per transaction, mean and total
#     execution time, share of the top-level time, shared blocks hit/read and
#     WAL bytes per call (top-level statements first, then nested ones),
#   - per table: updates, HOT updates and their ratio, inserts, deletes,
#     dead tuples at the end, and the autovacuums and autoanalyzes that ran
#     during the run,
#   - per index: scans and tuples read per 1,000 transactions,
#   - when perf works (apt-get install -y linux-perf; PERF=0 to skip): the
#     hottest symbols of the server's processes (cpu-clock sampling of the
#     postmaster and its children during the run; a flat profile: the server
#     is built without frame pointers).
#
# With ROUNDS=N the paths run N times in turn on the same growing database
# (the order reversed every other round), each run reported on its own: how
# the cost per statement moves over a session.
#
# Usage: bench/tpcc_profile.sh
# Env:   W=10 DUR=30 RAMP=5 CONNS=8 PATHS="client server" ROUNDS=1 PORT=5514 PERF=1
#        TOP=25 (statements and symbols shown) PGOLTP=path/to/binary
#        BENCH_DSN=postgres://... (a server with pg_stat_statements preloaded;
#        the postmaster's /proc is read only when PGDATA_PID names its pid)
set -euo pipefail

W=${W:-10}
DUR=${DUR:-30}
RAMP=${RAMP:-5}
CONNS=${CONNS:-8}
PATHS=${PATHS:-"client server"}
ROUNDS=${ROUNDS:-1}
PORT=${PORT:-5514}
PERF=${PERF:-1}
TOP=${TOP:-25}
. "$(dirname "$0")/lib.sh"
WORK=$(mktemp -d /tmp/pgoltp-bench-profile-XXXXXX)
chmod 755 "$WORK"
trap remove_private_work EXIT

build_pgoltp "$WORK/pgoltp"

PM_PID=${PGDATA_PID:-}
if [ -z "${BENCH_DSN:-}" ]; then
  start_private_server "$PORT" "-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all -c pg_stat_statements.max=2000 -c pg_stat_statements.track_planning=on"
  ADMIN_DSN="postgres://postgres@127.0.0.1:$PORT/postgres"
  PM_PID=$SERVER_PID
else
  ADMIN_DSN=$BENCH_DSN
fi
DSN=$(dsn_for "$ADMIN_DSN" pgoltp_bench_profile)
psql -q "$ADMIN_DSN" -c "drop database if exists pgoltp_bench_profile" -c "create database pgoltp_bench_profile"
psql -q "$DSN" -c "create extension if not exists pg_stat_statements"

echo "# bench/tpcc_profile.sh $(date -u +%FT%TZ) W=$W dur=${DUR}s ramp=${RAMP}s conns=$CONNS paths='$PATHS' rounds=$ROUNDS"
echo "# server: $(psql -Atc 'select version()' "$ADMIN_DSN" | cut -d, -f1); host: $(nproc) CPUs, load $(load_average)"
"$PGOLTP" --dsn "$DSN" tpcc load --warehouses "$W" >/dev/null 2>&1
psql -q "$DSN" -c "vacuum analyze"
# Install the server-path functions and warm the cache.
"$PGOLTP" --dsn "$DSN" tpcc run --record=false --check none --path server --duration 10s --progress 0 >/dev/null 2>&1


runs=""
for r in $(seq 1 "$ROUNDS"); do
  order=$PATHS
  [ $((r % 2)) -eq 0 ] && order=$(echo "$PATHS" | tr ' ' '\n' | tac | tr '\n' ' ')
  for p in $order; do runs="$runs $r:$p"; done
done
for run in $runs; do
  round=${run%%:*} path=${run#*:}
  echo
  echo "## round=$round path=$path $(date -u +%T) load $(load_average)"
  psql -q "$DSN" -c "select pg_stat_statements_reset()" -c "select pg_stat_reset()" >/dev/null
  sampler=""
  if [ -n "$PM_PID" ]; then
    python3 "$BENCH/server_cpu.py" "$PM_PID" 0.5 >"$WORK/server_cpu" &
    sampler=$!
  fi
  "$PGOLTP" --dsn "$DSN" --json tpcc run --record=false --check none --path "$path" --conns "$CONNS" \
    --duration "${DUR}s" --ramp "${RAMP}s" --progress 0 >"$WORK/run.json" 2>"$WORK/run.err" &
  pid=$!
  sleep "$RAMP"; sleep 1
  perfpid=""
  if [ "$PERF" = 1 ] && [ -n "$PM_PID" ] && command -v perf >/dev/null; then
    # The server's processes only (the connections are open by now).
    pids=$(ps -o pid= --ppid "$PM_PID" | tr -d ' ' | tr '\n' ',')$PM_PID
    perf record -e cpu-clock -F 499 -p "$pids" -o "$WORK/perf.data" -- sleep $((DUR - 2)) >/dev/null 2>&1 &
    perfpid=$!
  fi
  wait "$pid" || { echo "run failed: $(cat "$WORK/run.err")"; exit 1; }
  [ -n "$perfpid" ] && { wait "$perfpid" || true; }
  [ -n "$sampler" ] && { kill "$sampler"; wait "$sampler" 2>/dev/null || true; }
  python3 - "$WORK/run.json" "$WORK/server_cpu" <<'PY'
import json, sys, datetime
r = json.load(open(sys.argv[1]))
def unix(ts):  # RFC 3339 with nanoseconds
    head, frac = ts.rstrip("Z").split(".")
    return datetime.datetime.fromisoformat(head).replace(tzinfo=datetime.timezone.utc).timestamp() + float("0." + frac)
t0, t1 = unix(r["measure_start"]), unix(r["measure_end"])
# "<unix time> <CPU s> kind=<CPU s> ...": the server's CPU so far, split by process kind.
samples = []
for l in open(sys.argv[2]):
    w = l.split()
    if len(w) >= 2:
        samples.append((float(w[0]), float(w[1]), {k: float(v) for k, v in (x.split("=") for x in w[2:])}))
inside = [s for s in samples if t0 <= s[0] <= t1]
tps = r["tpm_total"] / 60
line = f"tpmC={int(r['tpmc'])} tpmTOTAL={r['tpm_total']:.0f} driver_cpu_s_per_1k={r['driver_cpu_s_per_1k']:.3f}"
if len(inside) >= 2 and inside[-1][0] > inside[0][0]:
    srv = (inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0])  # server CPU-s per second
    line += f" server_cpu_s_per_1k={1000 * srv / tps:.3f} server_cpu_s_per_s={srv:.2f}"
    used = inside[-1][1] - inside[0][1]
    if used > 0 and inside[0][2]:
        line += " server_split=" + ",".join(
            f"{k}:{100 * (inside[-1][2][k] - inside[0][2][k]) / used:.0f}%" for k in inside[0][2])
print(line + f" errors={r['errors']}")
PY
  txns=$(python3 -c 'import json,sys;r=json.load(open(sys.argv[1]));print(sum(t["count"] for t in r["txns"][:5]))' "$WORK/run.json")
  # The statistics cover ramp-up and measured time; per-transaction figures
  # divide by the transactions of the whole run (ramp-up included).
  all=$(python3 -c 'import json,sys;r=json.load(open(sys.argv[1]));d=r["options"];print(r["tpm_total"]/60*(d["Duration"]+d["Ramp"])/1e9)' "$WORK/run.json")
  psql -q -P pager=off "$DSN" -v txns="$all" -v top="$TOP" <<'SQL'
-- The transaction type of a statement, from its text (both paths).
CREATE FUNCTION pg_temp.kind(q text) RETURNS text LANGUAGE sql AS $$
  SELECT CASE
    WHEN q ~ 'pgoltp_new_order|d_next_o_id = d_next_o_id \+ 1|FROM item|item it|INSERT INTO order_line|UPDATE stock|INSERT INTO orders|INSERT INTO new_order|w_tax FROM warehouse|c_discount, c_last|v_o_id, v_last|count\(DISTINCT \(u' THEN 'NO'
    WHEN q ~ 'pgoltp_payment|w_ytd|d_ytd|c_payment_cnt|INSERT INTO history|count\(\*\) INTO v_n|ORDER BY c_first OFFSET \(v_n' THEN 'P'
    WHEN q ~ 'pgoltp_order_status|c_balance, c_first' THEN 'OS'
    WHEN q ~ 'pgoltp_delivery|new_order WHERE|o_carrier_id = |ol_delivery_d = |c_delivery_cnt|sum\(ol_amount\)' THEN 'D'
    WHEN q ~ 'pgoltp_stock_level|count\(DISTINCT|d_next_o_id INTO' THEN 'SL'
    WHEN q ~ '^(BEGIN|COMMIT|ROLLBACK)' THEN 'txn'
    ELSE '?' END $$;
\echo '### statements (per 1,000 transactions; top level first; share = of top-level time)'
WITH s AS (
  SELECT toplevel, calls, total_exec_time, plans, total_plan_time, shared_blks_hit, shared_blks_read, shared_blks_dirtied, wal_bytes, query,
    pg_temp.kind(query) AS kind
  FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND calls > 0 AND query !~ '^(--|select pg_stat|SELECT pg_advisory|SELECT warehouses)'),
t AS (SELECT sum(total_exec_time) AS top FROM s WHERE toplevel)
SELECT kind, CASE WHEN toplevel THEN 'top' ELSE 'nested' END AS lvl,
  round(calls * 1000 / :txns) AS calls_1k,
  round((total_exec_time / calls)::numeric, 3) AS mean_ms,
  round((total_exec_time * 1000 / :txns / 1000)::numeric, 3) AS exec_s_1k,
  round((100 * total_exec_time / t.top)::numeric, 1) AS share,
  round(100.0 * plans / calls) AS planned_pct, round((total_plan_time / greatest(plans, 1))::numeric, 3) AS plan_ms,
  round(shared_blks_hit::numeric / calls, 1) AS hit_call,
  round(shared_blks_read::numeric / calls, 2) AS read_call,
  round(shared_blks_dirtied::numeric / calls, 2) AS dirt_call,
  round(wal_bytes / calls) AS wal_b_call,
  left(regexp_replace(query, '\s+', ' ', 'g'), 110) AS query
FROM s, t ORDER BY toplevel DESC, total_exec_time DESC LIMIT :top;
\echo '### per transaction type, top-level execution time (per 1,000 transactions)'
SELECT kind, round(sum(calls) * 1000 / :txns) AS calls_1k,
  round((sum(total_exec_time) / :txns)::numeric, 3) AS exec_s_1k,
  round(sum(wal_bytes) / :txns) AS wal_kb_1k
FROM (SELECT *, pg_temp.kind(query) AS kind
  FROM pg_stat_statements WHERE toplevel AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND query !~ '^(--|select pg_stat|SELECT pg_advisory|SELECT warehouses)') s
GROUP BY kind ORDER BY 3 DESC;
\echo '### tables (per 1,000 transactions)'
SELECT relname, round(n_tup_upd * 1000 / :txns) AS upd_1k, round(n_tup_hot_upd * 1000 / :txns) AS hot_1k,
  CASE WHEN n_tup_upd > 0 THEN round(100.0 * n_tup_hot_upd / n_tup_upd, 1) END AS hot_pct,
  round(n_tup_ins * 1000 / :txns) AS ins_1k, round(n_tup_del * 1000 / :txns) AS del_1k,
  round(coalesce(idx_scan, 0) * 1000 / :txns) AS idx_scan_1k, round(coalesce(seq_scan, 0) * 1000 / :txns, 1) AS seq_scan_1k,
  n_live_tup AS live, n_dead_tup AS dead, autovacuum_count AS av, autoanalyze_count AS aa,
  to_char(last_autovacuum, 'HH24:MI:SS') AS last_av, to_char(last_autoanalyze, 'HH24:MI:SS') AS last_aa
FROM pg_stat_user_tables ORDER BY n_tup_upd + n_tup_ins + n_tup_del DESC;
\echo '### indexes (per 1,000 transactions)'
SELECT relname, indexrelname, round(idx_scan * 1000 / :txns) AS scans_1k, round(idx_tup_read * 1000 / :txns) AS tup_read_1k,
  round(idx_tup_fetch * 1000 / :txns) AS tup_fetch_1k
FROM pg_stat_user_indexes ORDER BY idx_scan DESC;
SQL
  if [ -s "$WORK/perf.data" ]; then
    echo "### perf: hottest symbols of the server's processes (% of their samples)"
    perf report -i "$WORK/perf.data" --no-children --sort dso,symbol --percent-limit 0.7 --stdio 2>/dev/null |
      grep -E '^ +[0-9]' | head -"$TOP"
    echo "### perf: the server's CPU samples by object (kernel, postgres, plpgsql.so, libc, ...)"
    perf report -i "$WORK/perf.data" --no-children --sort dso --stdio 2>/dev/null | grep -E '^ +[0-9]' | head -8
  fi
  echo "(transactions in the measured interval: $txns)"
done
