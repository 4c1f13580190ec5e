# bench/lib.sh: what the bench scripts share, sourced by them
# (. "$(dirname "$0")/lib.sh"), never run: this checkout (ROOT), its pgoltp
# binary and the host's load average.

# ROOT is this checkout.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

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
