package cluster

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/pgoltp/pgoltp/internal/problem"
)

// What the failover audit (experiment --failover) asks of the cluster: set
// synchronous replication, promote the most advanced standby after the
// primary was killed, and afterwards put the lab back as it was: the old
// primary (recovered) is the lab's primary again, its standbys cloned anew.

// StandbyCount is how many standbys the cluster has.
func (c *Cluster) StandbyCount() int { return len(c.Standbys) }

// SetSynchronous makes replication synchronous (quorum: ANY 1 of the
// standbys) or asynchronous, reloads the primary, and returns how to put the
// lab's own level back.
func (c *Cluster) SetSynchronous(ctx context.Context, on bool) (restore func(context.Context) error, err error) {
	was := c.Sync
	level := SyncOff
	if on {
		level = SyncQuorum
	}
	if err := c.setSync(ctx, level); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error { return c.setSync(ctx, was) }, nil
}

func (c *Cluster) setSync(ctx context.Context, level string) error {
	c.Sync = level
	if err := c.writeConfig(); err != nil {
		return err
	}
	if err := c.saveState(); err != nil {
		return err
	}
	if !c.Running(ctx) {
		return nil
	}
	return c.reload(ctx)
}

// PromoteMostAdvanced promotes the running standby that received the most
// WAL (pg_last_wal_receive_lsn) and waits until it takes writes; it returns
// its name and the DSN of database db on it.
func (c *Cluster) PromoteMostAdvanced(ctx context.Context, db string) (name, dsn string, err error) {
	var best *Cluster
	var bestLSN float64 = -1
	for _, n := range c.Nodes() {
		conn, err := adminconn.Connect(ctx, n.DSN("postgres"))
		if err != nil {
			continue
		}
		var lsn float64
		err = conn.QueryRow(ctx, `SELECT coalesce(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), '0/0'), 0)::float8`).Scan(&lsn)
		conn.Close(ctx)
		if err == nil && lsn > bestLSN {
			best, bestLSN = n, lsn
		}
	}
	if best == nil {
		return "", "", problem.Failed("no standby could be reached to promote")
	}
	cmd := c.user.command(ctx, c.Lab, filepath.Join(c.BinDir, "pg_ctl"), "promote", "-D", best.DataDir, "-w", "-t", "120")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("promoting %s failed: %v: %s", best.name, err, lastLines(string(out), 2))
	}
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if best.role(ctx) == "primary" {
			return best.name, best.DSN(db), nil
		}
	}
	return "", "", fmt.Errorf("%s did not leave recovery after pg_ctl promote", best.name)
}

// RebuildStandbys puts the lab back after a failover: every standby (the
// promoted one too) is stopped and removed, a replication cut undone, the
// primary started (crash recovery, if it was killed or fenced), their slots dropped, and the standbys cloned
// again from it under their old names.
func (c *Cluster) RebuildStandbys(ctx context.Context) error {
	names := make([]string, len(c.Standbys))
	for i, s := range c.Standbys {
		names[i] = s.Name
	}
	if err := c.destroyStandbys(ctx); err != nil {
		return err
	}
	if err := c.uncut(); err != nil {
		return fmt.Errorf("removing the replication cut from pg_hba.conf: %w", err)
	}
	c.Standbys = nil
	if err := c.saveState(); err != nil {
		return err
	}
	if err := c.Start(ctx); err != nil {
		return err
	}
	if err := c.reload(ctx); err != nil { // pg_hba.conf, if it ran through the cut
		return err
	}
	if err := c.dropSlots(ctx, names); err != nil {
		return fmt.Errorf("dropping the standbys' slots: %w", err)
	}
	for _, name := range names {
		if err := c.addStandby(ctx, name); err != nil {
			return err
		}
	}
	if err := c.writeConfig(); err != nil {
		return err
	}
	if err := c.reload(ctx); err != nil {
		return err
	}
	for _, n := range c.Nodes() {
		if err := n.Start(ctx); err != nil {
			return err
		}
	}
	return c.waitStreaming(ctx)
}
