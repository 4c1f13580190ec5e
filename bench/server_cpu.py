#!/usr/bin/env python3
"""bench/server_cpu.py PID [INTERVAL]: CPU seconds used so far by a PostgreSQL server.

PID is the postmaster's. Prints utime+stime of the postmaster, of its live
children (backends, walwriter, checkpointer, bgwriter, autovacuum, ...) and
of its exited children, which the postmaster has reaped into its own
cutime+cstime. Sampled before and after an interval, the difference is the
server's CPU in that interval, children that came and went included.
With INTERVAL (seconds), prints "<unix time> <CPU seconds>" every INTERVAL
until killed, so that the CPU of an interval known only afterwards (a run's
measured interval) can be read off the samples.
"""
import os
import sys
import time

pm = sys.argv[1]
hz = os.sysconf("SC_CLK_TCK")


def fields(pid):
    with open(f"/proc/{pid}/stat") as f:
        # comm may contain spaces and parentheses: split after the last ')'.
        return f.read().rsplit(")", 1)[1].split()


def server_cpu():
    # After the comm, field 0 is state, 1 ppid, 11 utime, 12 stime, 13 cutime, 14 cstime.
    f = fields(pm)
    ticks = int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or pid == pm:
            continue
        try:
            c = fields(pid)
        except OSError:
            continue  # exited meanwhile: counted in the postmaster's cutime
        if c[1] == pm:
            ticks += int(c[11]) + int(c[12])
    return ticks / hz


if len(sys.argv) < 3:
    print(f"{server_cpu():.2f}")
    sys.exit(0)
every = float(sys.argv[2])
while True:
    print(f"{time.time():.3f} {server_cpu():.2f}", flush=True)
    time.sleep(every)
