#!/usr/bin/env python3
"""bench/server_cpu.py PID [INTERVAL]: CPU seconds used so far by a PostgreSQL server.

PID is the postmaster's. Prints utime+stime of the postmaster, of its live
children (backends, walwriter, checkpointer, bgwriter, autovacuum, ...) and
of its exited children, which the postmaster has reaped into its own
cutime+cstime. Sampled before and after an interval, the difference is the
server's CPU in that interval, children that came and went included.

After the total, the same CPU split by process kind (k=v, CPU seconds so
far), the kind read from the process title in /proc/PID/cmdline:
  backend    client backends (the sessions that run the statements)
  aux        the postmaster itself, walwriter, checkpointer, background
             writer, the autovacuum and logical replication launchers (and
             the io workers of PostgreSQL 18)
  autovacuum autovacuum workers
  parallel   parallel query workers
  exited     exited children never seen alive by this sampler (they lived
             less than one interval) and the CPU the others used after
             their last sample: the rest of the postmaster's cutime+cstime.
A child that exits after being seen keeps its kind: its CPU up to its last
sample stays counted there, so every kind's figure only grows.

With INTERVAL (seconds), prints "<unix time> <CPU seconds> kind=... ..."
every INTERVAL until killed, so that the CPU of an interval known only
afterwards (a run's measured interval) can be read off the samples.
"""
import os
import sys
import time

pm = sys.argv[1]
hz = os.sysconf("SC_CLK_TCK")
KINDS = ("backend", "aux", "autovacuum", "parallel", "exited")
AUX = ("walwriter", "checkpointer", "background writer", "autovacuum launcher",
       "logical replication launcher", "archiver", "stats collector", "startup",
       "walreceiver", "walsender", "wal sender", "walsummarizer", "io worker")

seen = {}  # (pid, start time) -> (kind, ticks at its last sample)
gone = dict.fromkeys(KINDS, 0)  # ticks of the children seen alive that exited since


def fields(pid):
    with open(f"/proc/{pid}/stat") as f:
        # comm may contain spaces and parentheses: split after the last ')'.
        return f.read().rsplit(")", 1)[1].split()


def kind_of(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            title = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "backend"
    title = title.removeprefix("postgres: ")
    if title.startswith("autovacuum worker"):
        return "autovacuum"
    if title.startswith("parallel worker"):
        return "parallel"
    if title.startswith(AUX):
        return "aux"
    return "backend"


def server_cpu():
    # After the comm, field 0 is state, 1 ppid, 11 utime, 12 stime, 13 cutime,
    # 14 cstime, 19 start time (with the pid, a process's identity).
    f = fields(pm)
    reaped = int(f[13]) + int(f[14])
    split = dict.fromkeys(KINDS, 0)
    split["aux"] = int(f[11]) + int(f[12])
    alive = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or pid == pm:
            continue
        try:
            c = fields(pid)
        except OSError:
            continue  # exited meanwhile: counted in the postmaster's cutime
        if c[1] != pm:
            continue
        key = (pid, c[19])
        kind = seen[key][0] if key in seen else kind_of(pid)
        ticks = int(c[11]) + int(c[12])
        alive[key] = (kind, ticks)
        split[kind] += ticks
    for key, (kind, ticks) in seen.items():
        if key not in alive:
            gone[kind] += ticks
    seen.clear()
    seen.update(alive)
    for k in KINDS:
        split[k] += gone[k]
    split["exited"] += reaped - sum(gone.values())
    total = split["aux"] + reaped + sum(t for _, t in alive.values())
    return total / hz, {k: v / hz for k, v in split.items()}


def line():
    total, split = server_cpu()
    return f"{total:.2f} " + " ".join(f"{k}={v:.2f}" for k, v in split.items())


if len(sys.argv) < 3:
    print(line())
    sys.exit(0)
every = float(sys.argv[2])
while True:
    print(f"{time.time():.3f} {line()}", flush=True)
    time.sleep(every)
