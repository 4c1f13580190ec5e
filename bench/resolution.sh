#!/usr/bin/env bash
# bench/resolution.sh: what the lab resolves, per minute of machine time
# (issue 29, "How to prove it"). Run it on a quiet machine; every mode prints
# a markdown table for bench/RESULTS.md with the load average before and after.
#
#   aa     N experiments of a no-op step (A/A: commit_delay 0 against 0) on
#          TPC-B and TPC-C, each with repetitions: auto and a budget of
#          AA_MAX pairs of DUR; how many said better or worse (target: at most
#          1 of 20) and each one's minimum detectable effect (80% power).
#   known  known effects on the ledger: pgoltp.inject_rows (server work in every
#          transaction) calibrated to 2%, 5% and 10% of the objective; the
#          long-run value of each measured by a long run (TRUTH_PAIRS pairs of
#          TRUTH_DUR), then REPS short experiments (repetitions: auto, at most
#          KNOWN_MAX pairs of DUR): the fraction of intervals that cover the
#          long-run value (target: at least 90%) and how many said worse.
#          With COMMIT_DELAY=1 also commit_delay at half, once and twice the
#          measured WAL flush time (its long-run value measured the same way).
#   mde30  the MDE reached after BUDGET of machine time, per design: a
#          switchback run (a reload setting, commit_delay 0 against 0) and
#          separate runs (a restart setting: max_connections 100 against 101,
#          a restart at every switch), on TPC-B and TPC-C.
#   all    aa, known, mde30.
#
# Every experiment uses design: auto (a reload setting is measured by
# switchback, a restart setting by separate runs) unless DESIGN=separate.
#
# Usage: bench/resolution.sh aa|known|mde30|all
# Env:   PGOLTP=path/to/binary (default: built from this checkout)  PG=15
#        NICE=0 (nice level of everything started)  KEEP=1 (keep the lab)
#        OBJECTIVE=tps|per-cpu  DESIGN=auto|separate  DUR=30s PREWARM=10s
#        TPCB_SCALE=10 TPCB_CLIENTS=4  TPCC_WH=4 TPCC_CONNS=8  LEDGER_CLIENTS=4
#        N=20 AA_MAX=6 (aa)   REPS=10 KNOWN_MAX=6 TRUTH_PAIRS=20 TRUTH_DUR=60s
#        SHARES="2 5 10" (known)   BUDGET=30m MDE_DESIGNS="switchback separate" (mde30)
#        ONLY=tpcb|tpcc
# Reports (JSON) and the experiments' logs stay in OUT (default: a new
# directory under /tmp, printed at the end).
set -euo pipefail

MODE=${1:-}
case "$MODE" in
aa | known | mde30 | all) ;;
*)
  echo "usage: bench/resolution.sh aa|known|mde30|all (see the header for the environment)" >&2
  exit 2
  ;;
esac
PG=${PG:-15}
NICE=${NICE:-0}
OBJECTIVE=${OBJECTIVE:-tps}
DESIGN=${DESIGN:-auto}
DUR=${DUR:-30s}
PREWARM=${PREWARM:-10s}
TPCB_SCALE=${TPCB_SCALE:-10}
TPCB_CLIENTS=${TPCB_CLIENTS:-4}
TPCC_WH=${TPCC_WH:-4}
TPCC_CONNS=${TPCC_CONNS:-8}
LEDGER_CLIENTS=${LEDGER_CLIENTS:-4}
N=${N:-20}
AA_MAX=${AA_MAX:-6}
REPS=${REPS:-10}
KNOWN_MAX=${KNOWN_MAX:-6}
TRUTH_PAIRS=${TRUTH_PAIRS:-20}
TRUTH_DUR=${TRUTH_DUR:-60s}
SHARES=${SHARES:-2 5 10}
COMMIT_DELAY=${COMMIT_DELAY:-}
BUDGET=${BUDGET:-30m}
ONLY=${ONLY:-}
MDE_DESIGNS=${MDE_DESIGNS:-switchback separate}
. "$(dirname "$0")/lib.sh"
TABLE="python3 $BENCH/resolution.py"
lab_work
OUT=${OUT:-$(mktemp -d /tmp/resolution.XXXXXX)}
mkdir -p "$OUT"
cleanup() {
  if [ -n "${KEEP:-}" ]; then
    echo "lab kept in $LAB" >&2
  else
    remove_lab_work
  fi
  echo "reports and logs in $OUT" >&2
}
build_pgoltp "$WORK/pgoltp"
trap cleanup EXIT

seconds() { # 30s, 2m, 1h → seconds
  case "$1" in
  *h) echo $((${1%h} * 3600)) ;;
  *m) echo $((${1%m} * 60)) ;;
  *s) echo "${1%s}" ;;
  *) echo "$1" ;;
  esac
}

# workload KIND: the plan's workload line.
workload() {
  case "$1" in
  tpcb) echo "{kind: tpcb, scale: $TPCB_SCALE, clients: $TPCB_CLIENTS}" ;;
  tpcc) echo "{kind: tpcc, scale: $TPCC_WH, clients: $TPCC_CONNS}" ;;
  ledger) echo "{kind: ledger, scale: 1, clients: $LEDGER_CLIENTS}" ;;
  esac
}
kinds() {
  if [ -n "$ONLY" ]; then echo "$ONLY"; else echo "tpcb tpcc"; fi
}

# experiment NAME: runs $OUT/NAME.yaml, the JSON report to $OUT/NAME.json,
# its log to $OUT/NAME.log. A step not in effect fails the command but
# leaves its report, which the tables mark.
experiment() {
  echo "# $(date -u +%T) $1 (load $(load_average))" >&2
  nice -n "$NICE" "$PGOLTP" --json experiment "$OUT/$1.yaml" --lab "$LAB" >"$OUT/$1.json" 2>"$OUT/$1.log" ||
    echo "# $1: the experiment failed: $(tail -n 1 "$OUT/$1.log")" >&2
}

# header LINE: the plan's common keys.
header() {
  cat <<EOF
name: '$1'
workload: $(workload "$2")
duration: $3
prewarm: $PREWARM
objective: $OBJECTIVE
design: $DESIGN
EOF
}

# aa: N no-op steps in one plan per workload (one load), each its own
# experiment against the baseline.
aa() {
  for kind in $(kinds); do
    {
      header "A/A $kind" "$kind" "$DUR"
      echo "repetitions: auto"
      echo "max_repetitions: $AA_MAX"
      echo "baseline: {settings: {commit_delay: 0}}"
      echo "steps:"
      for i in $(seq 1 "$N"); do echo "  - {name: aa $i, settings: {commit_delay: 0}}"; done
    } >"$OUT/aa-$kind.yaml"
    experiment "aa-$kind"
  done
  $TABLE aa "$OUT"/aa-*.json
}

# known: calibrate, measure each effect's long-run value, then REPS short
# experiments of each.
known() {
  base="baseline: {settings: {pgoltp.inject_rows: 0}}"
  { # calibration: one long-ish run of a fixed amount of work
    header "known: calibration" ledger "$DUR"
    echo "repetitions: 4"
    echo "$base"
    echo "steps: [{name: calibration, settings: {pgoltp.inject_rows: 1000}}]"
  } >"$OUT/known-calibration.yaml"
  experiment known-calibration
  calibrated=$($TABLE calibrate "$OUT/known-calibration.json" 1000 $SHARES)
  read -r -a rows <<<"$calibrated"
  steps() { # steps NAME_SUFFIX: one step per share (and commit_delay)
    local i=0
    for share in $SHARES; do
      echo "  - {name: 'inject $share%$1', settings: {pgoltp.inject_rows: ${rows[$i]}}}"
      i=$((i + 1))
    done
    if [ -n "$COMMIT_DELAY" ]; then
      for d in $delays; do echo "  - {name: 'commit_delay $d$1', settings: {commit_delay: $d, commit_siblings: 1}}"; done
    fi
  }
  delays=""
  if [ -n "$COMMIT_DELAY" ]; then
    # the WAL flush time as PostgreSQL's documentation bases commit_delay
    # on it (pg_test_fsync's one 8kB write + fdatasync), in the lab's
    # filesystem: the median of 200, in microseconds.
    flush=$(python3 -c 'import os,sys,time,statistics
fd=os.open(sys.argv[1],os.O_WRONLY|os.O_CREAT,0o600); ts=[]
for _ in range(200):
    t=time.perf_counter(); os.pwrite(fd,b"x"*8192,0); os.fdatasync(fd); ts.append(time.perf_counter()-t)
os.close(fd); os.unlink(sys.argv[1]); print(max(1,int(statistics.median(ts)*1e6)))' "$WORK/flush-probe")
    echo "# WAL flush (8kB write + fdatasync, median): $flush µs" >&2
    delays="$((flush / 2)) $flush $((flush * 2))"
    base="baseline: {settings: {pgoltp.inject_rows: 0, commit_delay: 0}}"
  fi
  {
    header "known: long-run values" ledger "$TRUTH_DUR"
    echo "repetitions: $TRUTH_PAIRS"
    echo "$base"
    echo "steps:"
    steps ""
  } >"$OUT/known-truth.yaml"
  experiment known-truth
  {
    header "known: repetitions" ledger "$DUR"
    echo "repetitions: auto"
    echo "max_repetitions: $KNOWN_MAX"
    echo "$base"
    echo "steps:"
    for r in $(seq 1 "$REPS"); do steps " #$r"; done
  } >"$OUT/known-reps.yaml"
  experiment known-reps
  $TABLE known "$OUT/known-truth.json" "$OUT/known-reps.json"
}

# mde30: per workload and design, one experiment of BUDGET machine time.
mde30() {
  budget=$(seconds "$BUDGET")
  dur=$(seconds "$DUR")
  prewarm=$(seconds "$PREWARM")
  for kind in $(kinds); do
    # switchback: one run of 2 × pairs × DUR after one prewarm.
    if [[ " $MDE_DESIGNS " == *" switchback "* ]]; then
      pairs=$(((budget - prewarm) / (2 * dur)))
      {
        header "MDE in $BUDGET: $kind, switchback" "$kind" "$DUR"
        echo "repetitions: $((pairs < 2 ? 2 : pairs))"
        echo "baseline: {settings: {commit_delay: 0}}"
        echo "steps: [{name: reload setting (no-op), settings: {commit_delay: 0}}]"
      } >"$OUT/mde30-$kind-switchback.yaml"
      experiment "mde30-$kind-switchback"
    fi
    if [[ " $MDE_DESIGNS " == *" separate "* ]]; then
      # separate runs: each run is a restart, a checkpoint, a prewarm and
      # DUR; the last baseline run closes the sequence. The restart and the
      # checkpoint took under a second a run here (35 runs of 30 s + 10 s in
      # 23.7 min, TPC-B scale 10): 2 s is planned for them.
      pairs=$(((budget - dur - prewarm) / (2 * (dur + prewarm + 2))))
      {
        header "MDE in $BUDGET: $kind, separate runs" "$kind" "$DUR"
        echo "repetitions: $((pairs < 2 ? 2 : pairs))"
        echo "baseline: {settings: {max_connections: 100}}"
        echo "steps: [{name: restart setting, settings: {max_connections: 101}}]"
      } >"$OUT/mde30-$kind-separate.yaml"
      experiment "mde30-$kind-separate"
    fi
  done
  $TABLE mde30 "$BUDGET" "$OUT"/mde30-*.json
}

LOAD_BEFORE=$(load_average)
echo "# bench/resolution.sh $MODE $(date -u +%FT%TZ): $(nproc) CPUs, load before $LOAD_BEFORE"
echo "# DUR=$DUR PREWARM=$PREWARM OBJECTIVE=$OBJECTIVE DESIGN=$DESIGN TPCB_SCALE=$TPCB_SCALE TPCB_CLIENTS=$TPCB_CLIENTS TPCC_WH=$TPCC_WH TPCC_CONNS=$TPCC_CONNS N=$N AA_MAX=$AA_MAX REPS=$REPS KNOWN_MAX=$KNOWN_MAX TRUTH_PAIRS=$TRUTH_PAIRS TRUTH_DUR=$TRUTH_DUR SHARES='$SHARES' BUDGET=$BUDGET MDE_DESIGNS='$MDE_DESIGNS' NICE=$NICE"
nice -n "$NICE" "$PGOLTP" cluster up --lab "$LAB" --pg "$PG" >/dev/null
case "$MODE" in
all)
  aa
  known
  mde30
  ;;
*) "$MODE" ;;
esac
echo
echo "Load average (1, 5, 15 min) before: $LOAD_BEFORE; after: $(load_average) ($(date -u +%FT%TZ)); $(nproc) CPUs."
