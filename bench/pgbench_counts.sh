#!/usr/bin/env bash
# bench/pgbench_counts.sh: what bench/pgbench.sh's driver CPU is made of, in
# counts that hardly depend on the machine's load (for a busy machine, where
# CPU seconds per transaction move by 10-20% from run to run), for
# `pgoltp pgbench` and the real pgbench on bench/pgbench.sh's cases:
#   - user-space instructions per transaction: callgrind's Ir, the
#     difference between a -t 300 and a -t 1300 run (-c 8 -j 2), so that
#     start-up cancels out; pgoltp runs with GODEBUG=asyncpreemptoff=1, as
#     callgrind cannot follow the runtime's preemption signals;
#   - system calls and context switches per transaction (perf's software
#     events and syscall tracepoints), from a -t TXNS run.
# The kernel's share (80-85% of either driver's CPU here) follows the
# system calls and context switches; the rest, the instructions.
#
# Usage: bench/pgbench_counts.sh DSN     Env: PGOLTP (default: built from
# this checkout) SCALE=10 TXNS=3000 (per client) CASES="a b c d"
# Needs valgrind and perf.
set -euo pipefail
DSN=${1:?usage: bench/pgbench_counts.sh DSN}
SCALE=${SCALE:-10}
TXNS=${TXNS:-3000}
CASES=${CASES:-a b c d}
. "$(dirname "$0")/lib.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
build_pgoltp "$WORK/pgoltp"
PGBENCH=$(ls -d /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | tail -1)
PGBENCH=${PGBENCH:-$(command -v pgbench)} # not Debian's Perl wrapper: its start-up is not the driver's

pgbench_case_scripts "$WORK"
args_of() { pgbench_case_args "$1" "$WORK"; }

driver() { if [ "$1" = pgbench ]; then echo "$PGBENCH"; else echo "$PGOLTP pgbench"; fi; }

# instructions TOOL CASE N: callgrind's instruction count of a -t N run
instructions() {
  # shellcheck disable=SC2046
  GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    $(driver "$1") -n -M prepared -c 8 -j 2 -t "$3" $(args_of "$2") "$DSN" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

events=context-switches,raw_syscalls:sys_enter,syscalls:sys_enter_ppoll,syscalls:sys_enter_futex,syscalls:sys_enter_nanosleep,syscalls:sys_enter_tgkill

pgbench -i -q -s "$SCALE" "$DSN" >/dev/null 2>&1
echo "# bench/pgbench_counts.sh $(date -u +%FT%TZ) scale=$SCALE txns=$TXNS/client; host: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# case tool: user-space instructions, system calls (ppolls; futex+nanosleep+tgkill), context switches per transaction"
for c in $CASES; do
  for tool in pgbench pgoltp; do
    small=$(instructions $tool "$c" 300)
    large=$(instructions $tool "$c" 1300)
    # shellcheck disable=SC2046
    perf stat -x, -e "$events" -o "$WORK/stat" $(driver $tool) -n -M prepared -c 8 -j 2 -t "$TXNS" $(args_of "$c") "$DSN" >/dev/null 2>&1
    python3 - "$WORK/stat" "$c" "$tool" "$small" "$large" "$((8 * TXNS))" <<'PY'
import sys
stat, case, tool, small, large, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
v = {}
for line in open(stat):
    f = line.strip().split(",")
    if len(f) > 2 and f[0].isdigit():
        v[f[2].split(":")[-1]] = int(f[0]) / n
rt = sum(v.get(k, 0) for k in ("sys_enter_futex", "sys_enter_nanosleep", "sys_enter_tgkill"))
print(f"case={case} {tool:7s} instructions={(large - small) / (8 * 1000):,.0f} syscalls={v.get('sys_enter', 0):.2f} "
      f"(ppoll {v.get('sys_enter_ppoll', 0):.2f}; runtime {rt:.3f}) cs={v.get('context-switches', 0):.2f}")
PY
  done
done
