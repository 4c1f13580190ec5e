#!/usr/bin/env bash
# bench/tpcc_load.sh: `pgoltp tpcc load` against a plain COPY of the very same
# rows from pre-generated files, on the same server, alternately, in one run,
# so that noise from a shared machine hits both alike.
#
#   gen       pgoltp tpcc load --to-files: the rows as COPY text files (same seed)
#   copy1     the files COPYed by one psql session into bare tables (no indexes)
#   copy2     the same split over two psql sessions (stock+small tables | order_line+customer)
#   copy1+ix  copy1, then the same primary keys and indexes built serially, then ANALYZE
#   pgoltp    pgoltp tpcc load into an empty schema (parallel binary COPY FREEZE,
#             parallel index builds, ANALYZE), wall time of the whole command
#
# Usage: bench/tpcc_load.sh [DSN]          an existing server (superuser; creates a database)
#        bench/tpcc_load.sh --lab DIR      the lab's managed cluster (pgoltp cluster up)
# Default DSN: postgres://postgres@127.0.0.1:5499/postgres
# Env:   W=10 (warehouses) ROUNDS=2 WORKERS=(CPUs) PGOLTP=path/to/binary
# Prints one line per measurement and the ratios pgoltp / reference at the end.
set -euo pipefail

W=${W:-10}
ROUNDS=${ROUNDS:-2}
WORKERS=${WORKERS:-$(nproc)}
SEED=20261123
DB=pgoltp_bench_tpcc_load
. "$(dirname "$0")/lib.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

build_pgoltp "$WORK/pgoltp"

if [ "${1:-}" = "--lab" ]; then
  LAB=${2:?usage: bench/tpcc_load.sh --lab DIR}
  lab_server "$LAB" postgres
  ADMIN_DSN=$LAB_DSN
else
  ADMIN_DSN=${1:-postgres://postgres@127.0.0.1:5499/postgres}
fi
# The benchmark database on the same server.
DSN=$(dsn_for "$ADMIN_DSN" "$DB")
export PGOPTIONS="-c client_min_messages=warning"

psql -qX "$ADMIN_DSN" -c "drop database if exists $DB with (force)" -c "create database $DB"
PSQL=(psql -qX -v ON_ERROR_STOP=1 "$DSN")

echo "# bench/tpcc_load.sh $(date -u +%FT%TZ) warehouses=$W rounds=$ROUNDS workers=$WORKERS"
echo "# server: $(psql -AtX -c 'select version()' "$DSN" | cut -d, -f1); wal_level=$(psql -AtX -c 'show wal_level' "$DSN"), synchronous_commit=$(psql -AtX -c 'show synchronous_commit' "$DSN"), shared_buffers=$(psql -AtX -c 'show shared_buffers' "$DSN"), max_wal_size=$(psql -AtX -c 'show max_wal_size' "$DSN")"
echo "# host: $(nproc) CPUs, load average $(load_average) (shared machine: expect noise)"

now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$(now)"; }

t0=$(now)
"$PGOLTP" tpcc load --to-files "$WORK/data" -w "$W" --seed "$SEED" --workers "$WORKERS" >/dev/null
echo "gen wall=$(since "$t0") bytes=$(du -sb "$WORK/data" | cut -f1)"

# The table definitions without indexes, taken from a 1-warehouse pgoltp load
# in schema tmpl, so that both sides create exactly the same tables.
"$PGOLTP" --dsn "$DSN" tpcc load --schema tmpl -w 1 --force >/dev/null 2>&1
TABLES="warehouse district customer history new_order orders order_line item stock"
INDEXES=$(psql -AtX "$DSN" -c "select replace(pg_get_indexdef(indexrelid), 'tmpl.', 'ref.') from pg_index i join pg_class c on c.oid = i.indrelid where c.relnamespace = 'tmpl'::regnamespace and c.relname <> 'pgoltp_meta'")

bare_ref() {
  "${PSQL[@]}" -c "drop schema if exists ref cascade" -c "create schema ref"
  for t in $TABLES; do "${PSQL[@]}" -c "create table ref.$t (like tmpl.$t including defaults)"; done
  "${PSQL[@]}" -c checkpoint
}
copy_serial() { for t in "$@"; do echo "\\copy ref.$t from '$WORK/data/$t.copy'"; done | "${PSQL[@]}"; }

for r in $(seq 1 "$ROUNDS"); do
  bare_ref
  t0=$(now); copy_serial $TABLES; c1=$(since "$t0")
  echo "copy1 round=$r wall=$c1"
  t0=$(now)
  echo "$INDEXES" | sed 's/$/;/' | "${PSQL[@]}"
  for t in $TABLES; do echo "analyze ref.$t;"; done | "${PSQL[@]}"
  ix=$(since "$t0")
  echo "copy1+ix round=$r wall=$(python3 -c "print(f'{$c1 + $ix:.2f}')") (index+analyze $ix)"

  bare_ref
  t0=$(now)
  copy_serial stock item orders history new_order district warehouse &
  copy_serial order_line customer &
  wait
  echo "copy2 round=$r wall=$(since "$t0")"
  "${PSQL[@]}" -c "drop schema ref cascade" -c checkpoint

  # Like the reference, pgoltp starts from an empty schema (no old load to drop).
  "${PSQL[@]}" -c "drop schema if exists pgl cascade" -c checkpoint
  t0=$(now)
  "$PGOLTP" --dsn "$DSN" tpcc load -w "$W" --seed "$SEED" --workers "$WORKERS" --schema pgl --json >"$WORK/stats.json" 2>/dev/null
  wall=$(since "$t0")
  python3 - "$WORK/stats.json" "$r" "$wall" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
ns = 1e9
print(f"pgoltp round={sys.argv[2]} wall={sys.argv[3]} create={s['create_ns']/ns:.2f} data={s['data_ns']/ns:.2f} index={s['index_ns']/ns:.2f} analyze={s['analyze_ns']/ns:.2f} rows={sum(s['rows'].values())}")
PY
  "${PSQL[@]}" -c checkpoint
done 2>&1 | tee "$WORK/log"

python3 - "$WORK/log" <<'PY'
import re, sys, statistics as st
v = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) round=\d+ wall=([0-9.]+)", line)
    if m:
        v.setdefault(m.group(1), []).append(float(m.group(2)))
med = {k: st.median(x) for k, x in v.items()}
print("## medians (s): " + ", ".join(f"{k} {x:.2f}" for k, x in med.items()))
p = med["pgoltp"]
for ref in ("copy1", "copy2", "copy1+ix"):
    print(f"pgoltp (load+index+analyze) / {ref} = {p / med[ref]:.2f}")
print(f"target: pgoltp <= 25 s: {'met' if p <= 25 else 'NOT met'}; pgoltp <= 1.5 x copy1: {'met' if p <= 1.5 * med['copy1'] else 'NOT met'}")
PY
psql -qX "$ADMIN_DSN" -c "drop database if exists $DB with (force)"
