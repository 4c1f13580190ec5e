//go:build unix

package pgbuild

import (
	"os"
	"os/user"
	"strconv"
	"syscall"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// builder is who compiles: pgoltp's own user, or as root the server's
// (postgres), like the server: nothing of a build runs as root.
type builder struct {
	uid, gid int
	attr     *syscall.SysProcAttr // nil: ourselves
}

func buildUser() (builder, error) {
	if os.Geteuid() != 0 {
		return builder{uid: os.Geteuid(), gid: os.Getegid()}, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return builder{}, problem.BadInput("create it (useradd --system --user-group postgres)", "as root pgoltp builds as the user postgres, which does not exist")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return builder{uid: uid, gid: gid, attr: &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}}, nil
}
