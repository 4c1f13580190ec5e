//go:build !unix

package cluster

import (
	"errors"
	"syscall"
)

// The managed cluster runs PostgreSQL as a Unix server user; elsewhere
// pgoltp builds (to drive an external server) but cannot manage one.
var errUnixOnly = errors.New("the managed cluster needs Linux (or another Unix): use an external server with --dsn")

func kill(pid int, sig syscall.Signal) error { return errUnixOnly }

// runAsAttr: there is no switching to a Unix user here; the command runs
// as the caller.
func runAsAttr(uid, gid uint32) *syscall.SysProcAttr { return nil }
