#!/usr/bin/env python3
"""bench/host_cpu.py INTERVAL: the whole host's CPU time so far, by state.

Prints "<unix time> busy=<s> steal=<s> idle=<s> iowait=<s> irq=<s>
kthreads=<s>" every INTERVAL seconds until killed, CPU seconds summed over
all CPUs: busy, steal, idle, iowait and irq from /proc/stat (busy is
user+nice+system+irq+softirq, guest time inside user; irq is irq+softirq:
interrupts and the network stack's softirqs, loopback TCP's included;
steal is time the hypervisor gave to other guests; idle and iowait are
time nothing ran), kthreads from /proc/PID/stat of the kernel's own
threads (children of kthreadd: writeback and flush workers, ksoftirqd,
kswapd), including those that exited, as far as their parent's counters
keep them. Read off at an interval known only afterwards (a run's measured
interval), next to bench/server_cpu.py's server and the driver's own CPU,
the difference says what else ran and what the host did not give (steal)
or nothing used (idle).
"""
import os
import sys
import time

hz = os.sysconf("SC_CLK_TCK")
every = float(sys.argv[1])


def kernel_threads():
    """CPU seconds of kthreadd and its children (the kernel's threads)."""
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                w = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ppid = int(w[1])
        if pid == "2" or ppid == 2:
            total += int(w[11]) + int(w[12])  # utime, stime
            if pid == "2":
                total += int(w[13]) + int(w[14])  # reaped children
    return total / hz


while True:
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    user, nice, system, idle, iowait, irq, softirq, steal = v
    busy = user + nice + system + irq + softirq
    print(f"{time.time():.3f} busy={busy / hz:.2f} steal={steal / hz:.2f} idle={idle / hz:.2f} "
          f"iowait={iowait / hz:.2f} irq={(irq + softirq) / hz:.2f} kthreads={kernel_threads():.2f}", flush=True)
    time.sleep(every)
