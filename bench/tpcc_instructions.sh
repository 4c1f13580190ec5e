#!/usr/bin/env bash
# bench/tpcc_instructions.sh: the server's instructions per TPC-C transaction,
# per binary and path, counted by valgrind (callgrind's Ir) instead of timed:
# the same count on a quiet machine and on a loaded one, where CPU seconds
# per transaction move by ±20% from run to run (bench/tpcc_types.sh).
#
# Starts a private PostgreSQL under callgrind (every backend writes its
# count when it exits; autovacuum off, synchronous_commit off, jit off), loads
# one warehouse, then for every binary of BINARIES and path of PATHS runs one
# terminal on one connection with a fixed seed, so that every run draws the
# same transactions: N1 and then N2 of them (--txns-per-terminal). The
# backends' instructions of the N2 run less those of the N1 run, over N2-N1,
# are the instructions per transaction with the connections' start, the
# functions' install and the first calls' planning taken out. WEIGHTS picks
# one transaction type (e.g. 1,0,0,0,0) instead of the standard deck.
# Under valgrind everything runs ~50 times slower: a run of 220 transactions
# takes minutes.
#
# Usage: bench/tpcc_instructions.sh
# Env:   BINARIES="before=/path/a after=/path/b" (default: this checkout)
#        PATHS="client server" N1=20 N2=220 SEED=7 WEIGHTS= PORT=5516
set -euo pipefail

PATHS=${PATHS:-"client server"}
N1=${N1:-20}
N2=${N2:-220}
SEED=${SEED:-7}
PORT=${PORT:-5516}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/pgoltp-bench-instr-XXXXXX)
chmod 777 "$WORK"
PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 2; }

cleanup() {
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/data" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

if [ -z "${BINARIES:-}" ]; then
  (cd "$ROOT" && go build -o "$WORK/pgoltp" ./cmd/pgoltp)
  BINARIES="this=$WORK/pgoltp"
fi
FIRST=${BINARIES%% *}

mkdir -p "$WORK/data" "$WORK/cg" && chown postgres "$WORK/data" "$WORK/cg"
runuser -u postgres -- "$PGBIN/initdb" -D "$WORK/data" -U postgres --auth=trust >/dev/null
OPTS="-p $PORT -k $WORK/data -c listen_addresses=127.0.0.1 -c shared_buffers=1GB -c max_wal_size=8GB"
# Load without valgrind, then restart under it.
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/data" -l "$WORK/server.log" -w start -o "$OPTS" >/dev/null
DSN="postgres://postgres@127.0.0.1:$PORT/postgres"
"${FIRST#*=}" --dsn "$DSN" tpcc load --warehouses 1 >/dev/null 2>&1
psql -q "$DSN" -c "vacuum analyze"
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/data" -m fast stop >/dev/null
runuser -u postgres -- valgrind --tool=callgrind --callgrind-out-file="$WORK/cg/cg.%p" \
  "$PGBIN/postgres" -D "$WORK/data" $OPTS -c synchronous_commit=off -c jit=off -c autovacuum=off \
  >"$WORK/valgrind.log" 2>&1 &
for _ in $(seq 1 60); do psql -Atqc "select 1" "$DSN" >/dev/null 2>&1 && break; sleep 5; done

echo "# bench/tpcc_instructions.sh $(date -u +%FT%TZ) n1=$N1 n2=$N2 seed=$SEED weights='${WEIGHTS:-deck}' paths='$PATHS' binaries='$BINARIES'"
echo "# server: $(psql -Atc 'select version()' "$DSN" | cut -d, -f1) under valgrind --tool=callgrind; host load $(cut -d' ' -f1-3 /proc/loadavg)"

# instructions BINARY PATH N: the instructions of the backends of one run.
instructions() {
  local bin=$1 path=$2 n=$3 before new sum=0 c f
  # Each binary installs its own functions: drop the others' (their result
  # columns may differ, which CREATE OR REPLACE cannot change).
  psql -q "$DSN" -c "DO \$\$ DECLARE f regprocedure; BEGIN FOR f IN SELECT oid FROM pg_proc WHERE proname LIKE 'pgoltp\\_%' AND pronamespace = 'public'::regnamespace LOOP EXECUTE 'DROP FUNCTION ' || f; END LOOP; END \$\$"
  sleep 5 # psql's backend writes its count on exit
  before=$(ls "$WORK/cg")
  "$bin" --dsn "$DSN" --json tpcc run --record=false --check none --path "$path" --warehouses 1 \
    --terminals 1 --conns 1 --delivery-workers 1 --seed "$SEED" --txns-per-terminal "$n" ${WEIGHTS:+--weights "$WEIGHTS"} \
    --allow-noncompliant --duration 60m --ramp 0s --progress 0 >"$WORK/run.json" 2>"$WORK/run.err" ||
    { echo "run failed: $(cat "$WORK/run.err")" >&2; return 1; }
  sleep 5
  new=$(comm -13 <(echo "$before") <(ls "$WORK/cg"))
  for f in $new; do
    c=$(awk '/^(summary|totals):/{print $2; exit}' "$WORK/cg/$f")
    sum=$((sum + ${c:-0}))
  done
  echo "$sum $(python3 -c 'import json,sys;r=json.load(open(sys.argv[1]));print(",".join(str(t["count"]) for t in r["txns"][:5]))' "$WORK/run.json")"
}

for b in $BINARIES; do
  for p in $PATHS; do
    read -r i1 mix1 < <(instructions "${b#*=}" "$p" "$N1")
    read -r i2 mix2 < <(instructions "${b#*=}" "$p" "$N2")
    echo "bin=${b%%=*} path=$p instructions_per_txn=$(( (i2 - i1) / (N2 - N1) )) mix_n1=$mix1 mix_n2=$mix2"
  done
done
