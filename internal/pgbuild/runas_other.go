//go:build !unix

package pgbuild

import (
	"syscall"

	"github.com/pgoltp/pgoltp/internal/problem"
)

type builder struct {
	uid, gid int
	attr     *syscall.SysProcAttr
}

func buildUser() (builder, error) {
	return builder{}, problem.BadInput("build on Debian", "pgoltp builds PostgreSQL only on Debian")
}
