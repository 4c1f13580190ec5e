#!/usr/bin/env bash
# bench/tpcc_types.sh: the server's CPU per transaction, one transaction type
# at a time, for binaries and paths side by side (the server path's cuts).
#
# Starts a private PostgreSQL (shared_buffers 2GB) unless BENCH_DSN names a
# server, loads W warehouses, then for ROUNDS rounds, for each type of TYPES
# (no = New-Order, p = Payment, os = Order-Status, d = Delivery, sl =
# Stock-Level, mix = the standard deck), runs every binary of BINARIES on
# every path of PATHS for DUR s (no-wait, CONNS connections, --weights with
# that type alone), the order of the binaries and of the paths reversed every
# other round. Per run it prints the server's CPU in ms per transaction over
# the driver's measured interval (/proc of the postmaster and its children,
# bench/server_cpu.py): all of it, and the client backends' alone (bk=; no
# autovacuum, checkpointer, walwriter). Then per type and path the median
# over the rounds of each binary, and the median of the per-round ratios to
# the first binary (a round's runs are seconds apart, so the load of a
# shared machine moves them together: the ratio is steadier than either).
#
# Usage: bench/tpcc_types.sh
# Env:   BINARIES="before=/path/a after=/path/b" (default: this checkout)
#        TYPES="no p os d sl" PATHS="client server" W=4 CONNS=2 DUR=10
#        RAMP=2 ROUNDS=6 PORT=5515
#        BENCH_DSN=postgres://... SERVER_PID=<postmaster pid>
set -euo pipefail

W=${W:-4}
CONNS=${CONNS:-2}
DUR=${DUR:-10}
RAMP=${RAMP:-2}
ROUNDS=${ROUNDS:-6}
TYPES=${TYPES:-"no p os d sl"}
PATHS=${PATHS:-"client server"}
PORT=${PORT:-5515}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/pgoltp-bench-types-XXXXXX)
chmod 755 "$WORK"
PGDATA_DIR=""

cleanup() {
  if [ -n "$PGDATA_DIR" ]; then
    runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -m fast stop >/dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

if [ -z "${BINARIES:-}" ]; then
  (cd "$ROOT" && go build -o "$WORK/pgoltp" ./cmd/pgoltp)
  BINARIES="this=$WORK/pgoltp"
fi
FIRST=${BINARIES%% *}
PGOLTP=${FIRST#*=}

SERVER_PID=${SERVER_PID:-}
if [ -z "${BENCH_DSN:-}" ]; then
  PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}
  PGDATA_DIR=$WORK/data
  mkdir -p "$PGDATA_DIR" && chown postgres "$PGDATA_DIR"
  runuser -u postgres -- "$PGBIN/initdb" -D "$PGDATA_DIR" -U postgres --auth=trust >/dev/null
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -l "$PGDATA_DIR/server.log" -w start \
    -o "-p $PORT -k $PGDATA_DIR -c listen_addresses=127.0.0.1 -c shared_buffers=2GB -c max_connections=300 -c max_wal_size=8GB -c checkpoint_timeout=30min" >/dev/null
  ADMIN_DSN="postgres://postgres@127.0.0.1:$PORT/postgres"
  SERVER_PID=$(head -1 "$PGDATA_DIR/postmaster.pid")
else
  ADMIN_DSN=$BENCH_DSN
fi
[ -n "$SERVER_PID" ] || { echo "SERVER_PID: the postmaster's pid of BENCH_DSN is needed" >&2; exit 2; }
DSN=$(python3 -c 'import sys,urllib.parse as u;p=u.urlsplit(sys.argv[1]);print(u.urlunsplit(p._replace(path="/pgoltp_bench_types")))' "$ADMIN_DSN")
psql -q "$ADMIN_DSN" -c "drop database if exists pgoltp_bench_types" -c "create database pgoltp_bench_types"

echo "# bench/tpcc_types.sh $(date -u +%FT%TZ) W=$W conns=$CONNS dur=${DUR}s ramp=${RAMP}s rounds=$ROUNDS types='$TYPES' paths='$PATHS' binaries='$BINARIES'"
echo "# server: $(psql -Atc 'select version()' "$ADMIN_DSN" | cut -d, -f1); host: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$PGOLTP" --dsn "$DSN" tpcc load --warehouses "$W" >/dev/null 2>&1
psql -q "$DSN" -c "vacuum analyze"
"$PGOLTP" --dsn "$DSN" tpcc run --record=false --check none --path server --duration 10s --progress 0 >/dev/null 2>&1

weights() {
  case $1 in
    no) echo 1,0,0,0,0 ;; p) echo 0,1,0,0,0 ;; os) echo 0,0,1,0,0 ;; d) echo 0,0,0,1,0 ;;
    sl) echo 0,0,0,0,1 ;; mix) echo 10,10,1,1,1 ;; *) echo "TYPES: $1 is none of no p os d sl mix" >&2; exit 2 ;;
  esac
}

# run LABEL BINARY PATH TYPE: one run; appends "type path label ms bk_ms" to $WORK/runs.
# Each binary installs its own server-path functions: the others' are
# dropped first (their result columns may differ, which CREATE OR REPLACE
# cannot change).
run() {
  local label=$1 bin=$2 path=$3 type=$4 sampler
  psql -q "$DSN" -c "DO \$\$ DECLARE f regprocedure; BEGIN FOR f IN SELECT oid FROM pg_proc WHERE proname LIKE 'pgoltp\\_%' AND pronamespace = current_schema()::regnamespace LOOP EXECUTE 'DROP FUNCTION ' || f; END LOOP; END \$\$"
  python3 "$BENCH/server_cpu.py" "$SERVER_PID" 0.5 >"$WORK/server_cpu" &
  sampler=$!
  "$bin" --dsn "$DSN" --json tpcc run --record=false --check none --path "$path" --conns "$CONNS" \
    --weights "$(weights "$type")" --allow-noncompliant --duration "${DUR}s" --ramp "${RAMP}s" --progress 0 \
    >"$WORK/run.json" 2>"$WORK/run.err" || { kill "$sampler"; echo "run failed: $(cat "$WORK/run.err")"; return 1; }
  kill "$sampler"; wait "$sampler" 2>/dev/null || true
  python3 - "$WORK/run.json" "$WORK/server_cpu" "$type" "$path" "$label" <<'PY' | tee -a "$WORK/runs"
import json, sys, datetime
r = json.load(open(sys.argv[1]))
def unix(ts):  # RFC 3339 with nanoseconds
    head, frac = ts.rstrip("Z").split(".")
    return datetime.datetime.fromisoformat(head).replace(tzinfo=datetime.timezone.utc).timestamp() + float("0." + frac)
t0, t1 = unix(r["measure_start"]), unix(r["measure_end"])
s = []
for l in open(sys.argv[2]):
    w = l.split()
    if len(w) >= 2:
        s.append((float(w[0]), float(w[1]), {k: float(v) for k, v in (x.split("=") for x in w[2:])}))
s = [x for x in s if t0 <= x[0] <= t1]
tps = r["tpm_total"] / 60
span = s[-1][0] - s[0][0]
ms = 1000 * (s[-1][1] - s[0][1]) / span / tps
bk = 1000 * (s[-1][2]["backend"] - s[0][2]["backend"]) / span / tps
print(f"{sys.argv[3]} {sys.argv[4]} {sys.argv[5]} {ms:.4f} {bk:.4f} tps={tps:.0f} errors={r['errors']}")
PY
}

reverse() { echo "$1" | tr ' ' '\n' | tac | tr '\n' ' '; }
for r in $(seq 1 "$ROUNDS"); do
  echo "## round $r $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  for type in $TYPES; do
    paths=$PATHS bins=$BINARIES
    [ $((r % 2)) -eq 0 ] && paths=$(reverse "$PATHS") && bins=$(reverse "$BINARIES")
    for p in $paths; do
      for b in $bins; do run "${b%%=*}" "${b#*=}" "$p" "$type"; done
    done
  done
done

echo "## medians over $ROUNDS rounds: server CPU ms per transaction (backends alone), and per-round ratio to ${FIRST%%=*}"
python3 - "$WORK/runs" "${FIRST%%=*}" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
first = sys.argv[2]
keys = []
for t, p, b, *_ in rows:
    if (t, p, b) not in keys:
        keys.append((t, p, b))
for t, p, b in keys:
    mine = [(float(x[3]), float(x[4])) for x in rows if x[:3] == [t, p, b]]
    ref = [(float(x[3]), float(x[4])) for x in rows if x[:3] == [t, p, first]]
    line = f"{t:4} {p:7} {b:10} ms={st.median(m for m, _ in mine):.4f} bk={st.median(k for _, k in mine):.4f} n={len(mine)}"
    if b != first and len(ref) == len(mine):
        line += f" ratio={st.median(m / r for (m, _), (r, _) in zip(mine, ref)):.3f}"
        line += f" bk_ratio={st.median(k / q for (_, k), (_, q) in zip(mine, ref)):.3f}"
    print(line)
PY
"$PGOLTP" --dsn "$DSN" tpcc check --quick >/dev/null && echo "tpcc check: PASS" || echo "tpcc check: FAIL"
