# bench/lib.sh: what the bench scripts share, sourced by them
# (. "$(dirname "$0")/lib.sh"), never run: this checkout (ROOT), its pgoltp
# binary, the host's load average, a work directory with a lab, a private
# PostgreSQL server, a lab's server and a database's DSN.

# ROOT is this checkout; BENCH the scripts' own directory, where their
# helpers are (a copy of bench/ run from elsewhere finds its own).
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH/.." && pwd)

# build_pgoltp PATH: unless PGOLTP names a binary, builds one from this
# checkout at PATH and sets PGOLTP to it.
build_pgoltp() {
  if [ -z "${PGOLTP:-}" ]; then
    PGOLTP=$1
    (cd "$ROOT" && go build -o "$PGOLTP" ./cmd/pgoltp)
  fi
}

# load_average: the host's load averages over 1, 5 and 15 minutes.
load_average() { cut -d' ' -f1-3 /proc/loadavg; }

# start_private_server PORT [SETTINGS]: a new PostgreSQL of the newest
# installed major (or PGBIN's) in $WORK/data (PGDATA_DIR), on 127.0.0.1:PORT
# and a Unix socket in its data directory, trusting local users, with
# shared_buffers 2GB and the -c SETTINGS given; sets SERVER_PID to its
# postmaster. remove_private_work (the scripts' EXIT trap) stops it, if
# started, and removes WORK.
PGDATA_DIR=""
start_private_server() {
  PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}
  PGDATA_DIR=$WORK/data
  chmod 755 "$WORK" # the server user must reach its data directory
  mkdir -p "$PGDATA_DIR" && chown postgres "$PGDATA_DIR"
  runuser -u postgres -- "$PGBIN/initdb" -D "$PGDATA_DIR" -U postgres --auth=trust >/dev/null
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -l "$PGDATA_DIR/server.log" -w start \
    -o "-p $1 -k $PGDATA_DIR -c listen_addresses=127.0.0.1 -c shared_buffers=2GB -c max_connections=300 -c max_wal_size=8GB -c checkpoint_timeout=30min ${2:-}" >/dev/null
  SERVER_PID=$(head -1 "$PGDATA_DIR/postmaster.pid")
}
remove_private_work() {
  if [ -n "$PGDATA_DIR" ]; then
    runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -m fast stop >/dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
}

# lab_server LAB DB: brings the lab's managed cluster up, exports its
# PGPASSFILE and sets LAB_DSN to database DB on it, as its superuser, over
# TCP (pgx looks a Unix-socket host up in the passfile as "localhost").
lab_server() {
  "$PGOLTP" --lab "$1" cluster up >/dev/null
  local status
  status=$("$PGOLTP" --lab "$1" --json cluster status)
  PGPASSFILE=$(python3 -c 'import json,sys;print(json.load(sys.stdin)["passfile"])' <<<"$status")
  export PGPASSFILE
  LAB_DSN=$(python3 -c 'import json,sys;s=json.load(sys.stdin);print("host=127.0.0.1 port=%d user=%s dbname=%s" % (s["port"], s["superuser"], sys.argv[1]))' "$2" <<<"$status")
}

# dsn_for DSN DB: DSN (a URL or key=value pairs) naming database DB instead.
dsn_for() {
  python3 - "$1" "$2" <<'PY'
import sys, urllib.parse as u
dsn, db = sys.argv[1], sys.argv[2]
if "://" in dsn:
    p = u.urlsplit(dsn); print(u.urlunsplit(p._replace(path="/" + db)))
else:
    print(" ".join(f for f in dsn.split() if not f.startswith("dbname=")) + " dbname=" + db)
PY
}

# lab_work: WORK, a new directory the server user can reach, and LAB, a lab
# in it; remove_lab_work destroys the lab's cluster and removes WORK.
lab_work() {
  WORK=$(mktemp -d)
  chmod 755 "$WORK" # the server user must reach the lab
  LAB=$WORK/lab
}
remove_lab_work() {
  "$PGOLTP" cluster destroy --lab "$LAB" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}

# pgbench_case_scripts DIR: writes issue 27's custom scripts for
# bench/pgbench.sh and bench/pgbench_counts.sh into DIR: custom.sql (case c:
# \set random_zipfian, \gset, \if) and pipeline.sql (case d: batches of ten
# selects in \startpipeline).
pgbench_case_scripts() {
  cp "$ROOT/internal/pgbench/testdata/custom.sql" "$1/custom.sql" # also TestTransactionsAllocateNothing's
  {
    echo '\set aid random(1, 100000 * :scale)'
    echo '\startpipeline'
    for i in $(seq 1 10); do echo 'SELECT abalance FROM pgbench_accounts WHERE aid = :aid;'; done
    echo '\endpipeline'
  } >"$1/pipeline.sql"
}

# pgbench_case_args CASE DIR: the pgbench options of case a-d, with the
# scripts pgbench_case_scripts wrote in DIR.
pgbench_case_args() {
  case $1 in
    a) echo "-b tpcb-like" ;;
    b) echo "-S" ;;
    c) echo "-f $2/custom.sql" ;;
    d) echo "-f $2/pipeline.sql" ;;
  esac
}
