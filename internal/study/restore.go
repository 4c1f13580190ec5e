package study

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/pending"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/restore"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// changed is what a study changed on one major's cluster: the original
// values of its --set settings, kept in that cluster's lab until restored.
type changed struct {
	cluster *cluster.Cluster
	lab     string // LAB/pgNN
	guard   *pending.Guard
	before  map[string]settings.Live
	names   []string
}

// applySettings applies the study's settings to c (the cluster of lab),
// after writing their original values to lab's restore record. A pending
// record (a killed study's settings still live) refuses the study, even
// one without settings: its runs would measure the leftovers.
func (s *Study) applySettings(ctx context.Context, c *cluster.Cluster, lab string, values map[string]string) (*changed, error) {
	guard, err := pending.ForCluster(lab, "compare-versions")
	if err != nil {
		return nil, err
	}
	names := slices.Sorted(maps.Keys(values))
	before := map[string]settings.Live{}
	if len(names) > 0 {
		if before, err = readSettings(ctx, c, names); err != nil {
			return nil, err
		}
	}
	if before, err = guard.Begin(before, names); err != nil {
		return nil, err
	}
	ch := &changed{cluster: c, lab: lab, guard: guard, before: before, names: names}
	if len(names) == 0 {
		return ch, nil
	}
	if _, err := c.Apply(ctx, values); err != nil {
		return ch, err
	}
	return ch, nil
}

func readSettings(ctx context.Context, c *cluster.Cluster, names []string) (map[string]settings.Live, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	conn, err := adminconn.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	live, _, err := settings.ReadServer(ctx, conn, names...)
	return live, err
}

// restoreSettings puts back what the study changed on each cluster, under
// its lab's lock, and removes each record once the values are read back.
// It returns every failure, naming the command that finishes the job.
func (s *Study) restoreSettings(ctx context.Context, all []*changed) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	var errs []error
	for _, ch := range all {
		if len(ch.names) == 0 {
			continue
		}
		if err := ch.restore(ctx); err != nil {
			errs = append(errs, problem.Failed("the settings of %s could NOT be restored: %v; run 'pgoltp restore --lab %s'", ch.lab, err, ch.lab))
		}
	}
	return errors.Join(errs...)
}

func (ch *changed) restore(ctx context.Context) error {
	unlock, err := cluster.LockLab(ch.lab, "compare-versions", cluster.DefaultLockWait)
	if err != nil {
		return err
	}
	defer unlock()
	if err := restore.Settings(ctx, ch.cluster, ch.cluster.DSN("postgres"), ch.before, ch.names); err != nil {
		return err
	}
	if err := ch.guard.Done(); err != nil {
		return fmt.Errorf("restored, but the record stays: %w", err)
	}
	return nil
}
