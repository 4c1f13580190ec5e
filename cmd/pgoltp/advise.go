package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/tune"
)

type adviseFlags struct {
	ram         string
	cpus        float64
	storage     string
	connections int
	workload    string
	major       int
	format      string
	measureWAL  time.Duration
	walRate     string
	offline     bool
	run         string
}

func init() {
	var f adviseFlags
	cmd := &cobra.Command{
		Use:   "advise",
		Short: "Recommend postgresql.conf settings for this machine and workload, each with its reason and risk",
		Long: `advise recommends server settings from the memory and CPUs PostgreSQL may use
(cgroup limits included), the storage under the data, the workload and the
version. Every line carries its reason and its risk class (safe, restart,
can-lose-data-on-crash, can-corrupt-on-crash); advise never recommends a setting
that costs durability. Values are validated against the pg_settings ranges of
the server (--dsn, or the lab's managed cluster when it exists), else against
pgoltp's catalog for --pg.`,
		Example: `  pgoltp advise
  pgoltp advise --ram 64GB --cpus 16 --storage nvme --connections 200 --workload tpcc --pg 17
  pgoltp advise --dsn postgres://postgres@db:5432/postgres --measure-wal 60s --format sql`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runAdvise(cmd.Context(), cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.ram, "ram", "", "memory PostgreSQL may use, e.g. 16GB (default: detected, cgroup limit included)")
	fl.Float64Var(&f.cpus, "cpus", 0, "CPUs PostgreSQL may use (default: detected, cgroup quota included)")
	fl.StringVar(&f.storage, "storage", "", "storage under the data: ssd, hdd or nvme (default: detected)")
	fl.IntVar(&f.connections, "connections", 0, "client connections the workload opens")
	fl.StringVar(&f.workload, "workload", "oltp", "tpcc, tpcb or oltp")
	fl.IntVar(&f.major, "pg", 0, "PostgreSQL major version (default: the server's, else 18)")
	fl.StringVar(&f.format, "format", "conf", "output: conf (postgresql.conf snippet), sql (ALTER SYSTEM) or json")
	fl.DurationVar(&f.measureWAL, "measure-wal", 0, "sample the server's WAL rate for this long (run it during a workload) to size max_wal_size")
	fl.StringVar(&f.walRate, "wal-rate", "", "WAL rate per second measured elsewhere, e.g. 12MB, to size max_wal_size")
	fl.BoolVar(&f.offline, "offline", false, "do not connect to any server; validate against pgoltp's catalog")
	fl.StringVar(&f.run, "run", "", "size WAL settings from what this stored run measured (an id from 'pgoltp runs', or 'last')")
	rootCmd.AddCommand(cmd)
}

func runAdvise(ctx context.Context, cmd *cobra.Command, f adviseFlags) error {
	format := f.format
	if global.json {
		format = "json"
	}
	if format != "conf" && format != "sql" && format != "json" {
		return problem.BadInput("use --format conf, sql or json", "unknown output format %q", f.format)
	}
	switch f.workload {
	case tune.WorkloadTPCC, tune.WorkloadTPCB, tune.WorkloadOLTP:
	default:
		return problem.BadInput("use --workload tpcc, tpcb or oltp", "unknown workload %q", f.workload)
	}
	if f.storage != "" && f.storage != tune.StorageSSD && f.storage != tune.StorageHDD && f.storage != tune.StorageNVMe {
		return problem.BadInput("use --storage ssd, hdd or nvme", "unknown storage %q", f.storage)
	}
	if f.major != 0 && (f.major < tune.OldestMajor || f.major > tune.NewestMajor) {
		return problem.BadInput(fmt.Sprintf("use --pg %d to %d", tune.OldestMajor, tune.NewestMajor), "PostgreSQL %d is not supported", f.major)
	}
	if f.cpus < 0 || f.connections < 0 {
		return problem.BadInput("give positive numbers", "--cpus and --connections cannot be negative")
	}
	in := tune.AdviseInput{Connections: f.connections, Workload: f.workload, Major: f.major}
	if f.walRate != "" {
		b, err := settings.ToUnit(f.walRate, "B")
		if err != nil || b <= 0 || !strings.ContainsAny(f.walRate, "BkMGT") {
			return problem.BadInput("give bytes per second with a unit, e.g. --wal-rate 12MB", "bad --wal-rate %q", f.walRate)
		}
		in.WALBytesPerSecond = b
	}
	var runNote, remoteNote string
	if f.run != "" {
		past, err := pastRun(ctx, f.run)
		if err != nil {
			return err
		}
		if past.WALBytesPerSecond <= 0 {
			return problem.BadInput("pick a run that wrote WAL", "run %s has no WAL rate samples", past.ID)
		}
		in.WALBytesPerSecond = past.WALBytesPerSecond
		runNote = fmt.Sprintf("WAL rate %.1fMB/s measured by run %s (%s)", past.WALBytesPerSecond/1e6, past.ID, past.Workload)
	}
	var ram int64
	if f.ram != "" {
		b, err := settings.ToUnit(f.ram, "B")
		if err != nil || b <= 0 || !strings.ContainsAny(f.ram, "BkMGT") {
			return problem.BadInput("give a size with a unit, e.g. --ram 16GB", "bad --ram %q", f.ram)
		}
		ram = int64(b)
	}

	// The server, when one is reachable: its version and pg_settings ranges.
	dataPath := ""
	if !f.offline && (global.dsn != "" || cluster.Exists(global.lab)) {
		dsn, err := targetDSN(ctx)
		if err != nil {
			return err
		}
		if global.dsn == "" {
			if c, err := cluster.Open(global.lab); err == nil {
				dataPath = c.DataDir
			}
		}
		live, major, rate, local, err := readAdviseServer(ctx, dsn, f.measureWAL)
		if err != nil {
			return err
		}
		if f.major != 0 && f.major != major {
			return problem.BadInput(fmt.Sprintf("drop --pg or use --pg %d", major), "--pg %d but the server runs PostgreSQL %d", f.major, major)
		}
		in.Major, in.Live = major, live
		if !local && (f.ram == "" || f.cpus == 0 || f.storage == "") {
			remoteNote = "the server does not run on this host: give its --ram, --cpus and --storage, the detected ones are this machine's"
		}
		if rate > 0 {
			in.WALBytesPerSecond = rate
			runNote = fmt.Sprintf("WAL rate %.1fMB/s sampled for %s", rate/1e6, f.measureWAL)
		}
	} else if f.measureWAL > 0 {
		return problem.BadInput("pass --dsn or create the lab's cluster, or use --wal-rate", "--measure-wal needs a server")
	}

	in.Host = tune.DetectHost(dataPath)
	if ram > 0 {
		in.Host.RAM = ram
		in.Host.Notes = append(in.Host.Notes, "memory: "+f.ram+" from --ram")
	}
	if f.cpus > 0 {
		in.Host.CPUs = f.cpus
		in.Host.Notes = append(in.Host.Notes, fmt.Sprintf("cpus: %g from --cpus", f.cpus))
	}
	if f.storage != "" {
		in.Host.Storage = f.storage
		in.Host.Notes = append(in.Host.Notes, "storage: "+f.storage+" from --storage")
	}
	advice, err := tune.Advise(in)
	if err != nil {
		return problem.BadInput("check --ram, --cpus and --workload", "%v", err)
	}
	for _, n := range []string{runNote, remoteNote} {
		if n != "" {
			advice.Notes = append(advice.Notes, n)
		}
	}
	return writeAdvice(cmd.OutOrStdout(), advice, format)
}

func writeAdvice(w io.Writer, a tune.Advice, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(a)
	case "sql":
		return a.WriteSQL(w)
	}
	return a.WriteConf(w)
}

// readAdviseServer reads pg_settings, whether the server is on this host and,
// when asked, samples the WAL rate.
func readAdviseServer(ctx context.Context, dsn string, measure time.Duration) (map[string]settings.Live, int, float64, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, setupTimeout+measure)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, 0, 0, false, problem.Wrap(err, "check --dsn", "cannot connect")
	}
	defer conn.Close(context.Background())
	live, major, err := settings.ReadServer(ctx, conn)
	if err != nil {
		return nil, 0, 0, false, err
	}
	var rate float64
	if measure > 0 {
		if rate, err = tune.MeasureWALRate(ctx, conn, measure); err != nil {
			return nil, 0, 0, false, err
		}
	}
	return live, major, rate, tune.IsLocalServer(ctx, conn), nil
}
