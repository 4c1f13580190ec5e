package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// serverUser is the operating-system account the server runs as. PostgreSQL
// refuses to run as root, so when pgoltp runs as root the server runs as an
// unprivileged user (postgres by default) and pgoltp hands it its directories.
type serverUser struct {
	Name     string
	UID, GID uint32
	self     bool // the user running pgoltp: no credential switch needed
}

// resolveServerUser decides who runs the server. name is --run-as ("" = default).
func resolveServerUser(name string) (serverUser, error) {
	if os.Geteuid() != 0 {
		me, err := user.Current()
		if err != nil {
			return serverUser{}, err
		}
		if name != "" && name != me.Username {
			return serverUser{}, problem.BadInput("drop --run-as, or run pgoltp as root so it can start the server as another user",
				"--run-as %s needs root (pgoltp runs as %s)", name, me.Username)
		}
		return serverUser{Name: me.Username, UID: uint32(os.Geteuid()), GID: uint32(os.Getegid()), self: true}, nil
	}
	if name == "" {
		name = "postgres"
	}
	if name == "root" {
		return serverUser{}, problem.BadInput("pass --run-as with an unprivileged user such as postgres",
			"PostgreSQL refuses to run as root")
	}
	u, err := user.Lookup(name)
	if err != nil {
		return serverUser{}, problem.BadInput(
			fmt.Sprintf("create it (useradd --system --user-group %s) or pass --run-as with an existing unprivileged user", name),
			"PostgreSQL refuses to run as root and the user %q to run it as does not exist", name)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	if uid == 0 {
		return serverUser{}, problem.BadInput("pass --run-as with an unprivileged user", "user %q has uid 0: PostgreSQL refuses to run as root", name)
	}
	return serverUser{Name: name, UID: uint32(uid), GID: uint32(gid)}, nil
}

// command prepares a program to run as the server user, in dir.
func (u serverUser) command(ctx context.Context, dir, path string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	// A small, predictable environment: the server must not inherit PGDATA,
	// PGPORT and friends from the caller's shell, and LC_ALL keeps messages parseable.
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C", "LANG=C", "HOME=" + dir}
	if !u.self {
		cmd.SysProcAttr = runAsAttr(u.UID, u.GID)
	}
	return cmd
}

// own hands path to the server user (a no-op when the server runs as
// ourselves). A symlink is not followed: at worst the link itself changes hands.
func (u serverUser) own(path string) error {
	if u.self {
		return nil
	}
	return os.Lchown(path, int(u.UID), int(u.GID))
}

// canReach checks that the server user can enter dir: a lab below a private
// directory (root's home, a 0700 temp dir) would otherwise fail deep in initdb.
func (u serverUser) canReach(ctx context.Context, dir string) error {
	if u.self {
		return nil
	}
	cmd := u.command(ctx, dir, "/bin/sh", "-c", "exit 0")
	if err := cmd.Run(); err != nil {
		return problem.BadInput(
			fmt.Sprintf("use a --lab outside private directories, or let %s through (chmod o+x on each parent directory)", u.Name),
			"the server user %s cannot enter the lab directory %s", u.Name, dir)
	}
	return nil
}
