// Package host reads facts about the machine pgoltp runs on: the CPUs and
// memory a server may use (cgroup limits included), the storage under a data
// directory (its class, its block device, the time of one flush) and /proc
// (meminfo, sysctls, a process's memory and huge pages, whether a server's
// backend runs here). The advisor, the doctor, experiments and the search
// read it; it knows nothing of PostgreSQL settings or workloads.
package host
