#!/usr/bin/env bash
# bench/collectors.sh: what the collectors cost at the default 1 s interval.
#
# Runs internal/collect's TestCollectorCost for DUR seconds against a server
# loaded by pgbench (a separate process), and prints:
#   - CPU of the collector's own OS thread plus the server backend answering it
#     (per-tick work; the budget is < 1% of one core)
#   - CPU of the whole collecting process (Go runtime and GC included)
#   - pgbench TPS without and with the collectors (reference; noisy on a
#     shared machine, so read the ratio, not the numbers)
#
# Usage: bench/collectors.sh [DSN]   (default postgres://postgres@127.0.0.1:5499/postgres)
# Env:   DUR=30
set -euo pipefail
DSN=${1:-postgres://postgres@127.0.0.1:5499/postgres}
DUR=${DUR:-30}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PGOLTP_TEST_DSN=$DSN PGOLTP_BENCH_SECONDS=$DUR go test ./internal/collect/ -run '^TestCollectorCost$' -count=1 -v |
  grep -E 'cost_test.go|^(ok|FAIL|---)' | sed 's/^ *cost_test.go:[0-9]*: //'
