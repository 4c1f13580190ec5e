package main

import (
	"cmp"
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/advise"
	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/host"
	"github.com/pgoltp/pgoltp/internal/ossettings"
	"github.com/pgoltp/pgoltp/internal/problem"
)

func init() {
	f := advise.AdviseOptions{Profiles: adviseProfiles()}
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
	addAdviseFlags(cmd.Flags(), &f)
	rootCmd.AddCommand(cmd)
}

func runAdvise(ctx context.Context, cmd *cobra.Command, f advise.AdviseOptions) error {
	if err := f.Validate(global.json); err != nil {
		return namedFlags(err, adviseFlags)
	}
	in := f.Input()
	var walNote, remoteNote string
	if f.Run != "" {
		past, err := pastRun(ctx, f.Run)
		if err != nil {
			return err
		}
		if walNote, err = f.FromRun(&in, past); err != nil {
			return err
		}
	}
	// The server, when one is reachable: its version and pg_settings ranges.
	dataPath, labDir := "", ""
	if !f.Offline && (global.dsn != "" || cluster.Exists(global.lab)) {
		dsn, err := targetDSN(ctx)
		if err != nil {
			return err
		}
		if global.dsn == "" {
			if c, err := cluster.Open(global.lab); err == nil {
				dataPath, labDir = c.DataDir, c.Lab
			}
		}
		sampled, remote, err := f.FromServer(ctx, dsn, &in)
		if err != nil {
			return namedFlags(err, adviseFlags)
		}
		walNote, remoteNote = cmp.Or(sampled, walNote), remote
	} else if f.MeasureWAL > 0 {
		return problem.BadInput("pass --dsn or create the lab's cluster, or use --wal-rate", "--measure-wal needs a server")
	}
	in.Host = host.DetectHost(dataPath)
	if labDir != "" && f.Storage == "" {
		in.Host.MeasureFlush(labDir, dataPath) // the lab is pgoltp's: the probe file goes there
	}
	f.Override(&in.Host)
	advice, err := advise.Advise(in)
	if err != nil {
		return problem.BadInput("check --ram, --cpus and --workload", "%v", err)
	}
	for _, n := range []string{walNote, remoteNote} {
		if n != "" {
			advice.Notes = append(advice.Notes, n)
		}
	}
	if f.Format == "os-plan" {
		return writeAdviceOSPlan(cmd.OutOrStdout(), advice)
	}
	return advice.Write(cmd.OutOrStdout(), f.Format)
}

// writeAdviceOSPlan prints advise's OS recommendations as doctor prints its
// own: an experiment plan, one step each, measured on top of the
// shared_buffers advise recommends (huge pages are sized for it).
func writeAdviceOSPlan(w io.Writer, a advise.Advice) error {
	var recs []ossettings.Recommendation
	for _, r := range a.Items {
		if len(r.OS) > 0 {
			recs = append(recs, ossettings.Recommendation{Name: strings.ReplaceAll(r.Name, "_", "-"), Title: r.Reason, OS: r.OS})
		}
	}
	if len(recs) == 0 {
		return problem.Failed("advise recommends no OS change for this machine (huge pages only pay from shared_buffers of 2GB)")
	}
	baseline := map[string]string{"shared_buffers": a.Settings()["shared_buffers"]}
	_, err := io.WriteString(w, ossettings.PlanTextFrom("advise", baseline, recs))
	return err
}
