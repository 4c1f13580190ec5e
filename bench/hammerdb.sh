#!/usr/bin/env bash
# bench/hammerdb.sh: HammerDB 4.12's TPC-C (its own schema, loader and timed
# driver) on a PostgreSQL, so that pgoltp's paths can be compared with it on
# the same server (issue 32). Prints one line per measured run: NOPM, TPM and,
# when the server's postmaster is known, the server's CPU-s per 1,000
# transactions (bench/server_cpu.py over the timed interval).
#
# What it needs, installed when missing (as root, from Debian's packages):
# tcl8.6, tcl-thread, tcllib and libsqlite3-tcl, and to build pgtcl-ng
# (HammerDB's PostgreSQL interface, see install_pgtclng; Debian's libpgtcl
# does not work with it) tcl8.6-dev, libpq-dev, gcc and make. HammerDB's
# source, v4.12, comes from HAMMERDB_SRC (an unpacked tree), or HAMMERDB_GIT
# (a git directory holding the tag v4.12), or is cloned from its public
# repository; pgtcl-ng's likewise (PGTCLNG_SRC, PGTCLNG_GIT, or
# github.com/sm-shaw/pgtclng). Both go once into the cache dir, never into
# this repository. The binary release's lib/ has ticklecharts, which only
# the web service's charts use; the source tree does not, so a one-line
# stand-in module is put beside HammerDB's own.
#
# Each mode gets its own database (functions and procedures have the same
# names), built once by HammerDB's loader (buildschema with W warehouses) and
# kept: later runs reuse it. Each measured run is preceded by a cold run that
# is not reported (HammerDB's first run on a database is always slower).
#
# Usage: bench/hammerdb.sh
# Env:   W=10 VU=8 RAMP=1 DUR=1 (whole minutes, RAMP may be 0: HammerDB's
#        CLI keeps its timer alive only then) MODES="functions procedures" ROUNDS=1 COLD=1 (0:
#        no cold run) REBUILD=0 (1: drop and rebuild the databases)
#        BUILD_VU=1 (HammerDB's loader threads; with 2, and Debian's Pgtcl
#        then, one of them died half-way through, "a running Virtual User
#        was terminated", leaving a partial database: not tried since with
#        pgtcl-ng)
#        BENCH_DSN=postgres://user[:pass]@host:port/db (a superuser; else a
#        private server is started from the installed binaries, like
#        bench/tpcc_run.sh's) SERVER_PID=<postmaster pid of BENCH_DSN>
#        PORT=5514 SERVER_OPTS="-c ..." PGOLTP_CACHE (default ~/.cache/pgoltp)
#        HAMMERDB_SRC=dir HAMMERDB_GIT=dir PGTCLNG_SRC=dir PGTCLNG_GIT=dir
set -euo pipefail

W=${W:-10}
VU=${VU:-8}
RAMP=${RAMP:-1}
DUR=${DUR:-1}
MODES=${MODES:-"functions procedures"}
ROUNDS=${ROUNDS:-1}
COLD=${COLD:-1}
REBUILD=${REBUILD:-0}
PORT=${PORT:-5514}
. "$(dirname "$0")/lib.sh"
CACHE=${PGOLTP_CACHE:-$HOME/.cache/pgoltp}/hammerdb
HDB=$CACHE/HammerDB-4.12
WORK=$(mktemp -d /tmp/pgoltp-bench-hammerdb-XXXXXX)
chmod 700 "$WORK"
trap remove_private_work EXIT

case "$RAMP/$DUR" in
  *[!0-9/]*|/*|*/|*/0) echo "RAMP=$RAMP DUR=$DUR: use whole minutes, DUR at least 1 (HammerDB's CLI times runs in whole minutes)" >&2; exit 2 ;;
esac

# install_tcl: the Debian packages HammerDB and the pgtcl-ng build need,
# when missing. --no-upgrade: an installed libpq-dev is not to pull a newer
# PostgreSQL under servers that are running (their backends would then load
# a plpgsql.so of another minor version and fail).
install_tcl() {
  local need=""
  for p in tcl8.6 tcl8.6-dev tcl-thread tcllib libsqlite3-tcl libpq-dev gcc make; do
    dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
  done
  [ -z "$need" ] && return
  [ "$(id -u)" -eq 0 ] || { echo "missing Debian packages:$need; install them (apt-get install --no-upgrade$need)" >&2; exit 2; }
  apt-get install -y --no-upgrade $need >/dev/null
}

# source_tree REPO TAG DEST SRC_VAR GIT_VAR: a public repository's tree at
# TAG into DEST, from the directory in $SRC_VAR, the git dir in $GIT_VAR,
# or a clone (on a machine that reaches GitHub).
source_tree() {
  local repo=$1 tag=$2 dest=$3 src=${!4:-} git=${!5:-}
  mkdir -p "$dest"
  if [ -n "$src" ]; then cp -a "$src/." "$dest/"; return; fi
  if [ -z "$git" ]; then
    git=$CACHE/$(basename "$repo").git
    [ -d "$git" ] || git clone -q --bare "https://github.com/$repo" "$git" ||
      { echo "cannot fetch $repo: set $4 to its unpacked tree or $5 to a git dir of it" >&2; exit 2; }
  fi
  # Only the paths asked for (HammerDB's Build tree holds large Windows
  # binaries a partial snapshot may lack; git names them on stderr).
  git --git-dir="$git" archive "$tag" "${@:6}" 2>/dev/null | tar -x -C "$dest"
}

# install_pgtclng: pgtcl-ng, the PostgreSQL interface HammerDB is written
# for, built from source into $HDB/lib. Debian's libpgtcl (Pgtcl 2.7.7)
# does not do: its pg_exec_prepared takes no format lists, it has no
# pg_notice_handler, and under HammerDB's virtual-user threads its commands
# corrupt each other's messages ("bind message supplies 1280 parameters, but
# prepared statement "payment" requires 8", "invalid message format").
# pgtcl-ng 2.1.1.2 uses Tcl_Size (Tcl 8.7/9); with 8.6 that is int.
install_pgtclng() {
  local tmp=$1 src=$CACHE/pgtclng.src
  rm -rf "$src"
  source_tree sm-shaw/pgtclng HEAD "$src" PGTCLNG_SRC PGTCLNG_GIT .
  (cd "$src" && ./configure --with-tcl=/usr/lib/tcl8.6 --with-postgres-include="$(pg_config --includedir)" \
      --with-postgres-lib="$(pg_config --libdir)" && make CFLAGS_DEFAULT="-O2 -DTcl_Size=int") >"$CACHE/pgtclng.build.log" 2>&1 ||
    { echo "building pgtcl-ng failed: see $CACHE/pgtclng.build.log" >&2; exit 1; }
  mkdir -p "$tmp/lib/pgtclng"
  cp "$src"/libpgtcl*.so "$src/pkgIndex.tcl" "$tmp/lib/pgtclng/"
  # HammerDB loads the interface named in config/database.xml: name this
  # package, which loads pgtcl-ng's version exactly (Debian's Pgtcl, if
  # installed, has a higher one). Its virtual users' threads find it
  # through TCLLIBPATH (hdb below).
  local v
  v=$(sed -n 's/^package ifneeded Pgtcl \([0-9.]*\).*/\1/p' "$src/pkgIndex.tcl")
  mkdir -p "$tmp/lib/pgtcl_ng"
  printf 'package require -exact Pgtcl %s\npackage provide pgtcl_ng 1.0\n' "$v" >"$tmp/lib/pgtcl_ng/pgtcl_ng.tcl"
  echo 'package ifneeded pgtcl_ng 1.0 [list source [file join $dir pgtcl_ng.tcl]]' >"$tmp/lib/pgtcl_ng/pkgIndex.tcl"
  sed -i 's|<library>Pgtcl</library>|<library>pgtcl_ng</library>|' "$tmp/config/database.xml"
}

# install_hammerdb: HammerDB 4.12's source tree and pgtcl-ng into the
# cache, once.
install_hammerdb() {
  [ -f "$HDB/hammerdbcli" ] && return
  local tmp=$CACHE/unpack.$$
  rm -rf "$tmp"
  source_tree TPC-Council/HammerDB v4.12 "$tmp" HAMMERDB_SRC HAMMERDB_GIT hammerdbcli config modules src agent
  [ -f "$tmp/hammerdbcli" ] || { rm -rf "$tmp"; echo "no HammerDB v4.12 there (tag v4.12): point HAMMERDB_GIT at a HammerDB git dir" >&2; exit 2; }
  # The binary release's lib/ has ticklecharts, which only the web
  # service's charts use; the CLI loads it all the same.
  echo 'package provide ticklecharts 3.2.1' >"$tmp/modules/ticklecharts-3.2.1.tm"
  install_pgtclng "$tmp"
  mv "$tmp" "$HDB"
}

install_tcl
install_hammerdb

if [ -z "${BENCH_DSN:-}" ]; then
  start_private_server "$PORT" "${SERVER_OPTS:-}"
  BENCH_DSN="postgres://postgres@127.0.0.1:$PORT/postgres"
fi
SERVER_PID=${SERVER_PID:-}
# The DSN's parts, as HammerDB takes them (host, port, superuser, password);
# the password goes only into the Tcl script in the private work dir.
read -r PGH PGP PGU < <(python3 -c 'import sys,urllib.parse as u;p=u.urlsplit(sys.argv[1]);print(p.hostname or "127.0.0.1",p.port or 5432,u.unquote(p.username or "postgres"))' "$BENCH_DSN")
PGPW=$(python3 -c 'import sys,urllib.parse as u;print(u.unquote(u.urlsplit(sys.argv[1]).password or ""))' "$BENCH_DSN")
# HammerDB's loader takes no empty password (its build command loses the
# argument); a server that asks for none ignores the one it is given.
PGPW=${PGPW:-unused}

# hdb_script MODE DB: the common part of a HammerDB CLI script.
hdb_script() {
  local procs=false
  [ "$1" = procedures ] && procs=true
  cat <<EOF
dbset db pg
dbset bm TPC-C
diset connection pg_host {$PGH}
diset connection pg_port $PGP
diset connection pg_sslmode disable
diset tpcc pg_superuser {$PGU}
diset tpcc pg_superuserpass {$PGPW}
diset tpcc pg_defaultdbase postgres
diset tpcc pg_user tpcc
diset tpcc pg_pass tpcc
diset tpcc pg_dbase $2
diset tpcc pg_count_ware $W
diset tpcc pg_storedprocs $procs
EOF
}

# hdb RUN.tcl OUT: runs HammerDB's CLI on a script (from its own directory,
# where it finds its modules and sources).
hdb() { (cd "$HDB" && TMP=$WORK TCLLIBPATH="$HDB/lib" tclsh8.6 hammerdbcli auto "$1") >"$2" 2>&1; }

psql_admin() { psql -X -q -At "$BENCH_DSN" "$@"; }

# build MODE DB: HammerDB's loader, unless the database is there already.
build() {
  local mode=$1 db=$2
  if [ "$REBUILD" = 1 ]; then psql_admin -c "drop database if exists $db"; fi
  if [ "$(psql_admin -c "select count(*) from pg_database where datname = '$db'")" = 1 ]; then
    return
  fi
  { hdb_script "$mode" "$db"; echo "diset tpcc pg_num_vu ${BUILD_VU:-1}"; echo buildschema; } >"$WORK/build.tcl"
  echo "# building $db: HammerDB's loader, $W warehouses ($mode)" >&2
  hdb "$WORK/build.tcl" "$WORK/build.out" || true
  grep -q "SCHEMA COMPLETE" "$WORK/build.out" ||
    { echo "HammerDB's build of $db failed:" >&2; tail -20 "$WORK/build.out" | sed 's/^/  /' >&2; psql_admin -c "drop database if exists $db"; exit 1; }
  psql -X -q "$(dsn_for "$BENCH_DSN" "$db")" -c "vacuum analyze"
}

# run MODE DB REPORT: one timed run of VU virtual users; prints a line when
# REPORT is 1.
run() {
  local mode=$1 db=$2 report=$3 sampler=""
  { hdb_script "$mode" "$db"
    cat <<EOF
diset tpcc pg_driver timed
diset tpcc pg_rampup $RAMP
diset tpcc pg_duration $DUR
diset tpcc pg_allwarehouse false
diset tpcc pg_timeprofile false
loadscript
vuset vu $VU
vuset logtotemp 0
vucreate
vurun
vudestroy
EOF
  } >"$WORK/run.tcl"
  if [ -n "$SERVER_PID" ]; then
    python3 "$BENCH/server_cpu.py" "$SERVER_PID" 0.5 >"$WORK/server_cpu" &
    sampler=$!
  fi
  local t0
  t0=$(date +%s.%N)
  hdb "$WORK/run.tcl" "$WORK/run.out" || true
  [ -n "$sampler" ] && { kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true; }
  grep -q "TEST RESULT" "$WORK/run.out" ||
    { echo "HammerDB's run on $db failed (its output: $CACHE/failed-run.out):" >&2; cp "$WORK/run.out" "$CACHE/failed-run.out"; grep -m5 -i error "$WORK/run.out" | sed 's/^/  /' >&2; exit 1; }
  [ "$report" = 1 ] || return 0
  python3 - "$WORK/run.out" "$mode" "$VU" "$t0" "$((RAMP * 60))" "$((DUR * 60))" "$WORK/server_cpu" <<'PY'
import re, sys
out, mode, vu = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
t0, ramp, dur = float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
# "achieved N NOPM from T PostgreSQL TPM", or with HammerDB's TPM-first
# setting "achieved T PostgreSQL TPM at N NOPM".
m = re.search(r"achieved (\d+) NOPM from (\d+) PostgreSQL TPM", out)
if m:
    nopm, tpm = int(m.group(1)), int(m.group(2))
else:
    m = re.search(r"achieved (\d+) PostgreSQL TPM at (\d+) NOPM", out)
    tpm, nopm = int(m.group(1)), int(m.group(2))
line = f"hammerdb mode={mode} vu={vu} NOPM={nopm} TPM={tpm}"
# The timed interval starts after the virtual users connect and ramp up: take
# the server's CPU over the steady middle, from ramp+6 s to ramp+dur-6 s
# after the CLI started, divided by the TPM's transactions (TPM counts every
# database's commits and rollbacks, as HammerDB reports it).
try:
    s = [tuple(map(float, l.split()[:2])) for l in open(sys.argv[7]) if len(l.split()) >= 2]
except OSError:
    s = []
lo, hi = t0 + ramp + 6, t0 + ramp + dur - 6
inside = [x for x in s if lo <= x[0] <= hi]
if len(inside) >= 2 and inside[-1][0] > inside[0][0] and tpm > 0:
    cpu_per_s = (inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0])
    line += f" server_cpu_s_per_1k={1000 * cpu_per_s / (tpm / 60):.3f}"
    if nopm > 0:
        line += f" server_cpu_s_per_1k_no={1000 * cpu_per_s / (nopm / 60):.3f}"
print(line)
PY
}

echo "# bench/hammerdb.sh $(date -u +%FT%TZ) HammerDB 4.12 W=$W vu=$VU ramp=${RAMP}min dur=${DUR}min modes='$MODES' rounds=$ROUNDS"
echo "# server: $(psql_admin -c 'select version()' | cut -d, -f1); host: $(nproc) CPUs, load $(load_average)"
for mode in $MODES; do
  case "$mode" in functions|procedures) ;; *) echo "MODES: '$mode' is neither functions nor procedures" >&2; exit 2 ;; esac
  build "$mode" "hammerdb_tpcc_$mode"
  [ "$COLD" = 1 ] && run "$mode" "hammerdb_tpcc_$mode" 0
done
for r in $(seq 1 "$ROUNDS"); do
  for mode in $MODES; do run "$mode" "hammerdb_tpcc_$mode" 1; done
done
