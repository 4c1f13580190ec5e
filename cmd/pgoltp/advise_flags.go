package main

import (
	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/advise"
	"github.com/pgoltp/pgoltp/internal/workload/registry"
)

// addAdviseFlags declares the flags of 'pgoltp advise' that fill o.
func addAdviseFlags(f *pflag.FlagSet, o *advise.AdviseOptions) {
	f.StringVar(&o.RAM, "ram", "", "memory PostgreSQL may use, e.g. 16GB (default: detected, cgroup limit included)")
	f.Float64Var(&o.CPUs, "cpus", 0, "CPUs PostgreSQL may use (default: detected, cgroup quota included)")
	f.StringVar(&o.Storage, "storage", "", "storage under the data: ssd, hdd or nvme (default: detected)")
	f.IntVar(&o.Connections, "connections", 0, "client connections the workload opens")
	// The list as it always read (the registry's order would swap tpcc and
	// tpcb); TestAdviseHelpNamesTheProfiles keeps it the registry's.
	f.StringVar(&o.Workload, "workload", advise.WorkloadOLTP, "tpcc, tpcb or oltp")
	f.IntVar(&o.Major, "pg", 0, "PostgreSQL major version (default: the server's, else 18)")
	f.StringVar(&o.Format, "format", "conf", "output: conf (postgresql.conf snippet), sql (ALTER SYSTEM), json, or os-plan (its OS recommendations as an experiment plan on top of its shared_buffers, for 'pgoltp experiment --allow-os')")
	f.DurationVar(&o.MeasureWAL, "measure-wal", 0, "sample the server's WAL rate for this long (run it during a workload) to size max_wal_size")
	f.StringVar(&o.WALRate, "wal-rate", "", "WAL rate per second measured elsewhere, e.g. 12MB, to size max_wal_size")
	f.BoolVar(&o.Offline, "offline", false, "do not connect to any server; validate against pgoltp's catalog")
	f.StringVar(&o.DataSize, "data-size", "", "the size of the server's databases, e.g. 50GB, for the memory advice (default: read from the server; unknown offline)")
	f.StringVar(&o.Run, "run", "", "size WAL settings from what this stored run measured (an id from 'pgoltp runs', or 'last')")
}

// adviseFlags names the flag of each advise.AdviseOptions field, for its
// field errors.
var adviseFlags = map[string]string{
	"RAM": "--ram", "CPUs": "--cpus", "Storage": "--storage", "Connections": "--connections",
	"Workload": "--workload", "Major": "--pg", "Format": "--format", "MeasureWAL": "--measure-wal",
	"WALRate": "--wal-rate", "Offline": "--offline", "Run": "--run", "DataSize": "--data-size",
}

// adviseProfiles are the registry's workloads advise has a profile for.
func adviseProfiles() []advise.Profile {
	var out []advise.Profile
	for _, e := range registry.For(registry.Advise) {
		out = append(out, advise.Profile{Name: e.Kind, HotRows: e.HotRows})
	}
	return out
}
