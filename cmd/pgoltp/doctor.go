package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/doctor"
	"github.com/pgoltp/pgoltp/internal/problem"
)

func init() {
	var (
		opts   doctor.DoctorOptions
		noOS   bool
		strict bool
		run    string
		format string
	)
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Audit a running server and its OS: each finding with evidence, why, the fix and how sure we are",
		Long: `doctor audits the server (--dsn, or the lab's managed cluster) from its cumulative
statistics: requested vs timed checkpoints, buffers written by backends, the
full-page-image share of WAL, full WAL buffers, HOT updates, and (with --sample)
the wait events of active backends. When the server runs on this host it also
audits the OS: huge pages needed vs reserved vs used, transparent huge pages,
dirty writeback thresholds, swappiness, the data disk's I/O scheduler and
read-ahead, and memory overcommit. Run it after (or during) a workload: the
statistics describe what ran since they were last reset.`,
		Example: `  pgoltp doctor
  pgoltp doctor --dsn postgres://postgres@db/postgres --sample 10s --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if err := opts.Validate(); err != nil {
				return namedFlags(err, map[string]string{"Sample": "--sample"})
			}
			if format != "text" && format != "os-plan" {
				return problem.BadInput("use --format text or os-plan", "doctor has no format %q", format)
			}
			dsn, err := targetDSN(ctx)
			if err != nil {
				return err
			}
			opts.OS = !noOS
			if run != "" {
				past, err := pastRun(ctx, run)
				if err != nil {
					return err
				}
				opts.Run = &past
			}
			d, err := doctor.DoctorAt(ctx, dsn, opts)
			if p := (*problem.Problem)(nil); errors.As(err, &p) {
				return err
			}
			if err != nil {
				return problem.Failed("doctor: %v", err)
			}
			if format == "os-plan" {
				return writeOSPlan(cmd.OutOrStdout(), d)
			}
			if err := emit(cmd.OutOrStdout(), d, d.WriteText); err != nil {
				return err
			}
			if strict && d.Problems() > 0 {
				return problem.Failed("doctor found %d problems", d.Problems())
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.DurationVar(&opts.Sample, "sample", 0, "sample wait events of active backends for this long (run during a workload)")
	fl.BoolVar(&noOS, "no-os", false, "skip the OS checks")
	fl.StringVar(&format, "format", "text", "text, or os-plan: the OS recommendations as an experiment plan, one step each (run it with 'pgoltp experiment --allow-os')")
	fl.BoolVar(&strict, "strict", false, "exit 1 when a finding has severity problem")
	fl.StringVar(&run, "run", "", "also judge what this stored run measured (an id from 'pgoltp runs', or 'last')")
	rootCmd.AddCommand(cmd)
}
