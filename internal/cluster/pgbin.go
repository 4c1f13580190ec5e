package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// userBinaries is the installation --pg-bin names (issue 28): a directory
// with initdb, pg_ctl and postgres of a supported major (and the --pg one,
// when given), which nobody but its user (or root) could have put there,
// since pgoltp runs them.
func userBinaries(dir string, major int) (Binaries, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Binaries{}, err
	}
	if err := checkProgramDir(abs); err != nil {
		return Binaries{}, err
	}
	b, ok := probe(abs, "--pg-bin")
	if !ok {
		return Binaries{}, problem.BadInput("give --pg-bin the bin directory of a PostgreSQL installation (e.g. /usr/lib/postgresql/15/bin)",
			"%s does not hold initdb, pg_ctl and a postgres that reports its version", abs)
	}
	if err := ValidMajor(b.Major); err != nil {
		return Binaries{}, problem.BadInput("use an installation of a supported major", "--pg-bin %s: %v", abs, err)
	}
	if major != 0 && major != b.Major {
		return Binaries{}, problem.BadInput(fmt.Sprintf("drop --pg, or give --pg %d", b.Major), "--pg-bin %s holds PostgreSQL %d, not %d", abs, b.Major, major)
	}
	return b, nil
}

// checkProgramDir refuses a directory (and its three programs) that another
// user owns or that group or others may write to: pgoltp runs them, as root
// too.
func checkProgramDir(dir string) error {
	me := uint32(os.Geteuid())
	for _, p := range []string{dir, filepath.Join(dir, "initdb"), filepath.Join(dir, "pg_ctl"), filepath.Join(dir, "postgres")} {
		fi, err := os.Stat(p)
		if err != nil {
			return problem.BadInput("give --pg-bin the bin directory of a PostgreSQL installation", "--pg-bin: %v", err)
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != me && st.Uid != 0 {
			return problem.BadInput(fmt.Sprintf("use an installation owned by you or root (chown %d %s)", me, p),
				"refusing --pg-bin: %s belongs to uid %d, and pgoltp runs it as uid %d", p, st.Uid, me)
		}
		if fi.Mode().Perm()&0o022 != 0 {
			return problem.BadInput(fmt.Sprintf("chmod go-w %s", p), "refusing --pg-bin: other users may write to %s (mode %s), and pgoltp runs it", p, fi.Mode())
		}
	}
	return nil
}

// sameBinaries refuses --pg-bin for a lab whose cluster runs on other
// binaries: a data directory belongs to its installation.
func sameBinaries(c *Cluster, pgBin string) error {
	if pgBin == "" {
		return nil
	}
	abs, err := filepath.Abs(pgBin)
	if err != nil {
		return err
	}
	if abs != c.BinDir {
		return problem.BadInput("drop --pg-bin, use another --lab, or 'pgoltp cluster destroy' first",
			"the lab %s runs on %s, not --pg-bin %s", c.Lab, c.BinDir, abs)
	}
	return nil
}
