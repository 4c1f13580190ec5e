package main

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/tune"
)

type doctorFlags struct {
	sample time.Duration
	noOS   bool
	strict bool
	run    string
}

// pastRun loads a stored run and digests what the tuning rules need.
func pastRun(ctx context.Context, ref string) (tune.PastRun, error) {
	s, err := openResults(ctx)
	if err != nil {
		return tune.PastRun{}, err
	}
	defer s.Close()
	r, err := loadRun(ctx, s, ref)
	if err != nil {
		return tune.PastRun{}, err
	}
	p, ok := tune.PastRunFrom(r)
	if !ok {
		return p, problem.BadInput("record a run with statistics collection on", "run %s has no collected statistics", r.ID)
	}
	return p, nil
}

func init() {
	var f doctorFlags
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
			if f.sample < 0 || f.sample > time.Hour {
				return problem.BadInput("use --sample between 0 and 1h", "bad --sample %s", f.sample)
			}
			dsn, err := targetDSN(ctx)
			if err != nil {
				return err
			}
			opts := tune.DoctorOptions{Sample: f.sample, OS: !f.noOS}
			if f.run != "" {
				past, err := pastRun(ctx, f.run)
				if err != nil {
					return err
				}
				opts.Run = &past
			}
			d, err := tune.DoctorAt(ctx, dsn, opts)
			if p := (*problem.Problem)(nil); errors.As(err, &p) {
				return err
			}
			if err != nil {
				return problem.Failed("doctor: %v", err)
			}
			out := cmd.OutOrStdout()
			if global.json {
				err = writeJSON(out, d)
			} else {
				err = d.WriteText(out)
			}
			if err != nil {
				return err
			}
			if f.strict && d.Problems() > 0 {
				return problem.Failed("doctor found %d problems", d.Problems())
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.DurationVar(&f.sample, "sample", 0, "sample wait events of active backends for this long (run during a workload)")
	fl.BoolVar(&f.noOS, "no-os", false, "skip the OS checks")
	fl.BoolVar(&f.strict, "strict", false, "exit 1 when a finding has severity problem")
	fl.StringVar(&f.run, "run", "", "also judge what this stored run measured (an id from 'pgoltp runs', or 'last')")
	rootCmd.AddCommand(cmd)
}
