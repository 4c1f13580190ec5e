//go:build linux

package cluster

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill cmd when pgoltp dies, even by SIGKILL.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
