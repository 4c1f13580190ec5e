package pgbench

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/pgoltp/pgoltp/internal/cluster"
)

// Find returns the pgbench to run: the first of dirs that has one (the
// cluster's own bin directory, so its version matches the server), else the
// one on PATH, else one next to any PostgreSQL server installed on this
// machine (Debian and RPM packages keep it out of PATH).
func Find(dirs ...string) (string, error) {
	for _, d := range dirs {
		if p := filepath.Join(d, "pgbench"); executable(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath("pgbench"); err == nil {
		return p, nil
	}
	for _, b := range cluster.FindInstalled("") {
		if p := b.Tool("pgbench"); executable(p) {
			return p, nil
		}
	}
	return "", errors.New("pgbench not found on PATH nor next to an installed PostgreSQL server")
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
