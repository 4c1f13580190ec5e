#!/usr/bin/env python3
"""bench/host_cpu.py INTERVAL: the whole host's CPU time so far, by state.

Prints "<unix time> busy=<s> steal=<s> idle=<s> iowait=<s>" every INTERVAL
seconds until killed, CPU seconds summed over all CPUs from /proc/stat:
busy is user+nice+system+irq+softirq (guest time is inside user), steal is
time the hypervisor gave to other guests, idle and iowait are time nothing
ran. Read off at an interval known only afterwards (a run's measured
interval), next to bench/server_cpu.py's server and the driver's own CPU,
the difference says what else ran (kernel writeback threads, other
processes) and what the host did not give (steal) or nothing used (idle).
"""
import os
import sys
import time

hz = os.sysconf("SC_CLK_TCK")
every = float(sys.argv[1])
while True:
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    user, nice, system, idle, iowait, irq, softirq, steal = v
    busy = user + nice + system + irq + softirq
    print(f"{time.time():.3f} busy={busy / hz:.2f} steal={steal / hz:.2f} idle={idle / hz:.2f} iowait={iowait / hz:.2f}", flush=True)
    time.sleep(every)
