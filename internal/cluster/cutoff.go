package cluster

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/adminconn"
)

// The failover audit's network cut (experiment --failover --kill network,
// issue 31): the primary keeps running and taking its clients' commits, but
// its standbys no longer receive its WAL. Done with PostgreSQL's own
// mechanisms, no firewall: pg_hba.conf rejects replication connections
// (reloaded, so the standbys' walreceivers cannot reconnect), then the
// walsenders are terminated. After a standby is promoted the old primary is
// fenced (stopped at once) so that it takes no more writes.

// cutMarker ends every pg_hba.conf line the cut adds, so that they can be
// found and removed again, even after an interrupted audit.
const cutMarker = "# pgoltp failover audit: replication cut"

// CutReplication cuts the primary off from its standbys and returns once
// none is streaming.
func (c *Cluster) CutReplication(ctx context.Context) error {
	hba, err := c.readHBA()
	if err != nil {
		return err
	}
	reject := fmt.Sprintf("local replication all reject %[1]s\nhost replication all all reject %[1]s\n", cutMarker)
	if err := c.writeHBA(reject + withoutCut(hba)); err != nil {
		return err
	}
	if err := c.reload(ctx); err != nil {
		return err
	}
	conn, err := adminconn.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var streaming int
		err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_replication`).Scan(&streaming)
		if err != nil {
			return fmt.Errorf("terminating the walsenders: %w", err)
		}
		if streaming == 0 {
			return nil
		}
	}
	return fmt.Errorf("a standby still streams a minute after the replication cut")
}

// Fence stops the (old) primary at once (immediate shutdown: its sessions
// end without a reply, and nothing more commits on it).
func (c *Cluster) Fence(ctx context.Context) error {
	cmd := c.user.command(ctx, c.Lab, filepath.Join(c.BinDir, "pg_ctl"), "stop", "-D", c.DataDir, "-m", "immediate", "-w", "-t", "120")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("fencing the old primary failed: %v: %s", err, lastLines(string(out), 2))
	}
	return nil
}

// uncut removes the cut's lines from pg_hba.conf (read at the next start or
// reload), if any.
func (c *Cluster) uncut() error {
	hba, err := c.readHBA()
	if err != nil {
		return err
	}
	if kept := withoutCut(hba); kept != hba {
		return c.writeHBA(kept)
	}
	return nil
}

func withoutCut(hba string) string {
	var kept []string
	for _, line := range strings.SplitAfter(hba, "\n") {
		if !strings.Contains(line, cutMarker) {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "")
}

func (c *Cluster) readHBA() (string, error) {
	f, err := c.user.openInData(filepath.Join(c.DataDir, "pg_hba.conf"), os.O_RDONLY)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return string(b), err
}

func (c *Cluster) writeHBA(content string) error {
	return c.user.writeInData(filepath.Join(c.DataDir, "pg_hba.conf"), content, os.O_WRONLY|os.O_TRUNC)
}
