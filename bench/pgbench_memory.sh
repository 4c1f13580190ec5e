#!/usr/bin/env bash
# bench/pgbench_memory.sh: is `pgoltp pgbench`'s memory flat over a long run
# with -l (issue 27: "memory flat over a 1-hour run with -l")? Runs
#   pgoltp pgbench -n -M prepared -c 8 -j 2 -T DUR -l [ARGS] DSN
# (the built-in tpcb-like unless ARGS name another script), samples the
# process's resident set (VmRSS of /proc/PID/status) every EVERY seconds, and
# prints each sample, then the first, last and maximum and last/first.
# The -l files go to a temporary directory, removed at the end: at full
# speed they grow by ~50 bytes per transaction (~1 GB an hour at 6,000 tps).
#
# Usage: bench/pgbench_memory.sh DSN     Env: PGOLTP (default: built from
# this checkout) DUR=3600 EVERY=10 ARGS="" (extra pgbench options, e.g. -S or -R 2000)
set -euo pipefail
DSN=${1:?usage: bench/pgbench_memory.sh DSN}
DUR=${DUR:-3600}
EVERY=${EVERY:-10}
ARGS=${ARGS:-}
. "$(dirname "$0")/lib.sh"
WORK=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
build_pgoltp "$WORK/pgoltp"
echo "# bench/pgbench_memory.sh $(date -u +%FT%TZ) dur=${DUR}s every=${EVERY}s args='$ARGS'; host: $(nproc) CPUs, load $(load_average)"
# shellcheck disable=SC2086
"$PGOLTP" pgbench -n -M prepared -c 8 -j 2 -T "$DUR" -l --log-prefix "$WORK/log" $ARGS "$DSN" >"$WORK/out" 2>&1 &
pid=$!
start=$(date +%s)
while sleep "$EVERY"; do
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null) || break
  [ -n "$rss" ] || break
  logs=$(du -sk "$WORK" | cut -f1)
  echo "t=$(($(date +%s) - start))s rss_kb=$rss logs_kb=$logs"
  echo "$rss" >>"$WORK/rss"
done
wait "$pid" || { echo "pgoltp pgbench failed:"; cat "$WORK/out"; exit 1; }
pid=
grep -E '^(number of transactions actually processed|tps)' "$WORK/out"
awk '{ if (NR == 1) first = $1; last = $1; if ($1 > max) max = $1 }
     END { if (NR == 0) { print "no samples: run longer than EVERY"; exit 1 }
           printf "RSS samples %d: first %.1f MB, last %.1f MB, max %.1f MB, last/first %.2f\n", NR, first/1024, last/1024, max/1024, last/first }' "$WORK/rss"
