//go:build unix

package cluster

import "syscall"

// kill signals a process (sig 0: only checks that it exists).
func kill(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// runAsAttr makes a command run as uid:gid.
func runAsAttr(uid, gid uint32) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}}
}
