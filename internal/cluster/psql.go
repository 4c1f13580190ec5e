package cluster

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// Psql is psql on database db of the cluster with args after the
// connection string, on the terminal's stdin and stdout: psql from PATH,
// else the cluster's own; the password comes from the lab's pgpass file.
func (c *Cluster) Psql(ctx context.Context, db string, args []string) (*exec.Cmd, error) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		psql = filepath.Join(c.BinDir, "psql")
		if _, serr := os.Stat(psql); serr != nil {
			return nil, problem.BadInput("install the PostgreSQL client (apt-get install postgresql-client)", "psql is not installed")
		}
	}
	p := exec.CommandContext(ctx, psql, append([]string{c.DisplayDSN(db)}, args...)...)
	p.Env = append(os.Environ(), "PGPASSFILE="+c.PassFile())
	p.Stdin, p.Stdout, p.Stderr = os.Stdin, os.Stdout, os.Stderr
	return p, nil
}
